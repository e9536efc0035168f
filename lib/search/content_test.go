package search

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// corpusDir is the real Claude Code 2.1.328 corpus (testdata/corpus).
func corpusDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "corpus", "claude", "projects"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skip("testdata/corpus is not generated")
	}
	return dir
}

// corpusTranscripts lists the corpus's main transcripts.
func corpusTranscripts(t *testing.T) []string {
	t.Helper()
	ts, err := filepath.Glob(filepath.Join(corpusDir(t), "*", "*.jsonl"))
	if err != nil || len(ts) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	sort.Strings(ts)
	return ts
}

// readTypes reads a list of names, one a line, # comments.
func readTypes(t *testing.T, name string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// TestContentTypes keeps the content list whole: every attachment type
// Claude Code 2.1.328 knows (testdata/attachment-types.txt, read out of
// the binary) and every one the corpus holds is either searched or listed
// as boilerplate, never both; every record type it writes (the spec's
// list and the corpus's) is known, so a new one gets looked at.
func TestContentTypes(t *testing.T) {
	known := readTypes(t, "attachment-types.txt")
	records := readTypes(t, "record-types.txt")
	seenAtt, seenRec := map[string]bool{}, map[string]bool{}
	for _, tr := range corpusTranscripts(t) {
		files, err := SessionFiles(tr)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.Kind == KindToolResult {
				continue
			}
			eachJSONLine(t, f.Path, func(rec map[string]any) {
				typ, _ := rec["type"].(string)
				seenRec[typ] = true
				if att, ok := rec["attachment"].(map[string]any); ok {
					at, _ := att["type"].(string)
					seenAtt[at] = true
				}
			})
		}
	}
	for at := range seenAtt {
		if !slices.Contains(known, at) {
			t.Errorf("the corpus has attachment type %q, missing from testdata/attachment-types.txt", at)
		}
	}
	for rt := range seenRec {
		if !slices.Contains(records, rt) {
			t.Errorf("the corpus has record type %q, missing from testdata/record-types.txt", rt)
		}
	}
	for _, at := range known {
		_, content := attachmentContent[at]
		boiler := slices.Contains(attachmentBoilerplate, at)
		if content == boiler {
			t.Errorf("attachment type %q: content %v, boilerplate %v: want exactly one", at, content, boiler)
		}
	}
	for at := range attachmentContent {
		if !slices.Contains(known, at) {
			t.Errorf("content attachment type %q is not one Claude Code 2.1.328 knows", at)
		}
	}
	for _, at := range attachmentBoilerplate {
		if !slices.Contains(known, at) {
			t.Errorf("boilerplate attachment type %q is not one Claude Code 2.1.328 knows", at)
		}
	}
	for _, rt := range contentRecords {
		if !slices.Contains(records, rt) {
			t.Errorf("content record type %q is not one Claude Code 2.1.328 writes", rt)
		}
	}
	// The boilerplate the issue named is not searched.
	for _, at := range []string{"prompt_snapshot", "skill_listing", "deferred_tools_delta", "agent_listing_delta", "environment"} {
		if _, ok := attachmentContent[at]; ok || !seenAtt[at] {
			t.Errorf("%s: searched %v, in the corpus %v", at, ok, seenAtt[at])
		}
	}
}

func eachJSONLine(t *testing.T, path string, fn func(rec map[string]any)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		fn(rec)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// refContent is the reference for walkContent, written again on
// encoding/json's generic decode: every content string of a record.
// refSummary finds the summary in a compaction summary record's text, as
// the corpus's /compact wrote it.
var refSummary = regexp.MustCompile(`(?s)^This session is being continued .*?</system-reminder>\n(?:Summary:\n)?(.*?)(?:\n\nIf you need specific details from before compaction|\n\nNote:|\nContinue the conversation from where|\n\nThe messages after this summary|$)`)

func refContent(rec map[string]any) []string {
	var out []string
	str := func(v any) {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	var all func(v any)
	all = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, e := range v {
				all(e)
			}
		case map[string]any:
			for _, e := range v {
				all(e)
			}
		}
	}
	msg, _ := rec["message"].(map[string]any)
	switch rec["type"] {
	case "user":
		switch c := msg["content"].(type) {
		case string:
			if rec["isMeta"] == true && strings.HasPrefix(c, "<local-command-caveat>") {
				return nil
			}
			if rec["isCompactSummary"] == true {
				// Only the summary the model wrote (TestCompactSummaryBody).
				if m := refSummary.FindStringSubmatch(c); m != nil {
					c = m[1]
				}
			}
			out = append(out, c)
		case []any:
			for _, b := range c {
				b, _ := b.(map[string]any)
				switch b["type"] {
				case "text":
					str(b["text"])
				case "tool_result":
					switch rc := b["content"].(type) {
					case string:
						out = append(out, rc)
					case []any:
						for _, ib := range rc {
							if ib, _ := ib.(map[string]any); ib["type"] == "text" {
								str(ib["text"])
							}
						}
					}
				}
			}
		}
	case "assistant":
		c, _ := msg["content"].([]any)
		for _, b := range c {
			b, _ := b.(map[string]any)
			switch b["type"] {
			case "text":
				str(b["text"])
			case "thinking":
				str(b["thinking"])
			case "tool_use":
				all(b["input"])
			}
		}
	case "attachment":
		att, _ := rec["attachment"].(map[string]any)
		typ, _ := att["type"].(string)
		for _, path := range attachmentContent[typ] {
			vals := []any{att}
			for _, name := range strings.Split(path, ".") {
				var next []any
				for _, v := range flatten(vals) {
					if name == "*" {
						all(v)
						continue
					}
					if m, ok := v.(map[string]any); ok && m[name] != nil {
						next = append(next, m[name])
					}
				}
				vals = next
			}
			for _, v := range flatten(vals) {
				str(v)
			}
		}
	}
	return out
}

// flatten opens arrays, as the path walk goes through them.
func flatten(vals []any) []any {
	var out []any
	for _, v := range vals {
		if a, ok := v.([]any); ok {
			out = append(out, flatten(a)...)
		} else {
			out = append(out, v)
		}
	}
	return out
}

// refSession gives, per session, the lowercased content strings (the
// reference) and the lowercased raw bytes of every file.
func refSession(t *testing.T, tr string) (content []string, raw []byte) {
	t.Helper()
	files, err := SessionFiles(tr)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		raw = append(raw, bytes.ToLower(data)...)
		raw = append(raw, '\n')
		if f.Kind == KindToolResult {
			content = append(content, strings.ToLower(string(data)))
			continue
		}
		eachJSONLine(t, f.Path, func(rec map[string]any) {
			for _, s := range refContent(rec) {
				content = append(content, strings.ToLower(s))
			}
		})
	}
	return content, raw
}

// TestCorpusWords: on the real sessions of testdata/corpus, common words
// match exactly the sessions where they were said (the reference above),
// and with Raw exactly those whose bytes hold them, alone, with AND and
// with Any.
func TestCorpusWords(t *testing.T) {
	words := []string{"error", "test", "result", "file", "model", "timeout", "git", "bash", "session",
		"echo", "hello", "agent", "periwinkle", "sleep", "hook", "report", "tool", "user", "queued", "output", "command", "straight"}
	trs := corpusTranscripts(t)
	type ref struct {
		content []string
		raw     []byte
	}
	refs := map[string]ref{}
	for _, tr := range trs {
		c, r := refSession(t, tr)
		refs[tr] = ref{c, r}
	}
	inContent := func(tr, w string) bool {
		for _, s := range refs[tr].content {
			if strings.Contains(s, w) {
				return true
			}
		}
		return false
	}
	inRaw := func(tr, w string) bool { return bytes.Contains(refs[tr].raw, []byte(w)) }
	queries := [][]string{}
	for _, w := range words {
		queries = append(queries, []string{w})
	}
	queries = append(queries, []string{"error", "bash"}, []string{"test", "file"}, []string{"model", "result", "echo"},
		[]string{"hello", "timeout"}, []string{"periwinkle", "git"})
	differ := 0
	for _, q := range queries {
		for _, any := range []bool{false, true} {
			for _, raw := range []bool{false, true} {
				s, err := New(Options{Terms: q, Any: any, Raw: raw})
				if err != nil {
					t.Fatal(err)
				}
				sc := s.NewScanner()
				for _, tr := range trs {
					want := !any
					for _, w := range q {
						w = strings.ToLower(w)
						has := inContent(tr, w)
						if raw {
							has = inRaw(tr, w)
						}
						if any {
							want = want || has
						} else {
							want = want && has
						}
					}
					res := sc.Session(context.Background(), tr)
					if len(res.Errs) > 0 {
						t.Fatal(res.Errs)
					}
					if res.Matched != want {
						t.Errorf("%q any=%v raw=%v in %s: matched %v, want %v", q, any, raw, filepath.Base(tr), res.Matched, want)
					}
					if !raw && len(q) == 1 && inRaw(tr, q[0]) && !want {
						differ++
					}
				}
			}
		}
	}
	// The test means something only where content and bytes disagree.
	if differ < 20 {
		t.Errorf("only %d session-word pairs where the bytes hold a word that content does not", differ)
	}
}
