package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
)

// ContentText is the text of a message's content, a prompt or a tool
// result: a string as it is, or the text blocks of a block array joined
// by line breaks; hasToolResult says whether the array holds a
// tool_result block. Anything else has no text.
func ContentText(raw json.RawMessage) (text string, hasToolResult bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s, false
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case BlockText:
			parts = append(parts, b.Text)
		case BlockToolResult:
			hasToolResult = true
		}
	}
	return strings.Join(parts, "\n"), hasToolResult
}

// The one-line summaries a table shows of a message's content blocks or
// a tool's input object (NDJSON, csv and tsv keep them whole).

// ContentSummary puts a message (or its content, or an entry's text) on
// one line: text blocks joined, a tool call as "tool NAME", a tool result
// as its first line; an object without content (an attachment) as its
// type.
func ContentSummary(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '"':
		var s string
		_ = json.Unmarshal(v, &s)
		return oneLine(s)
	case '{':
		var m map[string]json.RawMessage
		if json.Unmarshal(v, &m) != nil {
			return ""
		}
		if c, ok := m["content"]; ok {
			return ContentSummary(c)
		}
		var typ string
		_ = json.Unmarshal(m["type"], &typ)
		return typ
	case '[':
		var blocks []struct {
			Type    string          `json:"type"`
			Text    string          `json:"text"`
			Name    string          `json:"name"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(v, &blocks) != nil {
			return ""
		}
		var parts []string
		for _, b := range blocks {
			var s string
			switch b.Type {
			case BlockText:
				s = oneLine(b.Text)
			case BlockToolUse:
				s = "tool " + b.Name
			case BlockToolResult:
				text, _ := ContentText(b.Content)
				s = firstLine(text)
			}
			if s = strings.TrimSpace(s); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, " · ")
	}
	return string(v)
}

// inputKeys are the fields that say what a tool call did, most telling
// first.
var inputKeys = []string{"command", "file_path", "notebook_path", "pattern", "path", "url", "query", "description", "prompt", "skill"}

// InputSummary is a tool's input on one line: the first of inputKeys it
// has (with the pattern's path, if any), else its JSON.
func InputSummary(v json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		var s string
		if json.Unmarshal(v, &s) == nil {
			return oneLine(s)
		}
		return oneLine(string(bytes.TrimSpace(v)))
	}
	for _, k := range inputKeys {
		var s string
		if json.Unmarshal(m[k], &s) == nil && s != "" {
			if k == "pattern" {
				var p string
				if json.Unmarshal(m["path"], &p) == nil && p != "" {
					s += " in " + p
				}
			}
			return oneLine(s)
		}
	}
	return oneLine(string(v))
}

// firstLine is the first line of s that is not blank, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// oneLine folds a text's line breaks and tabs (and the runs of white
// space around them) into single spaces.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
