package cli

import (
	"bytes"
	"encoding/json"
	"strings"
)

// The one-line summaries of a table's Summary, FirstLine and Input cells:
// what a person reads in a row, where the record holds a message's content
// blocks or a tool's input object (NDJSON, csv and tsv keep them whole).

// summary puts a message (or its content, or an entry's text) on one line:
// text blocks joined, a tool call as "tool NAME", a tool result as its
// first line; an object without content (an attachment) as its type.
func summary(v json.RawMessage) string {
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
			return summary(c)
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
			case "text":
				s = oneLine(b.Text)
			case "tool_use":
				s = "tool " + b.Name
			case "tool_result":
				s = firstLine(summaryText(b.Content))
			}
			if s = strings.TrimSpace(s); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, " · ")
	}
	return string(v)
}

// summaryText is a tool result's content as text: a string, or its text
// blocks joined by line breaks.
func summaryText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(v, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
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

// inputKeys are the fields that say what a tool call did, most telling
// first.
var inputKeys = []string{"command", "file_path", "notebook_path", "pattern", "path", "url", "query", "description", "prompt", "skill"}

// inputSummary is a tool's input on one line: the first of inputKeys it
// has (with the pattern's path, if any), else its JSON.
func inputSummary(v json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		return oneLine(plain(v))
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
