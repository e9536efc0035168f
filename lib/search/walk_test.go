package search

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestWalkContent: which strings of a line are content, and where they
// lie.
func TestWalkContent(t *testing.T) {
	names := map[string]string{}
	tests := []struct {
		line string
		want []string // "where/tool/attachment/field=text"
	}{
		{`{"type":"user","uuid":"u1","message":{"role":"user","content":"fix the flaky test"}}`,
			[]string{"prompt///content=fix the flaky test"}},
		{`{"type":"user","isMeta":true,"message":{"content":"<local-command-caveat>The command below</local-command-caveat>"}}`, nil},
		{`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test ./...","opts":{"env":["A=b"]}}}]}}`,
			[]string{"tool_use/Bash//input.command=go test ./...", "tool_use/Bash//input.opts.env=A=b"}},
		{`{"type":"user","message":{"content":[{"tool_use_id":"t1","type":"tool_result","content":[{"type":"text","text":"ok"},{"type":"image","source":{"type":"base64","data":"dGVzdA=="}}],"is_error":false}]}}`,
			[]string{"tool_result/Bash//content.text=ok"}},
		{`{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"hm","signature":"sig"}]}}`,
			[]string{"thinking///thinking=hm"}},
		{`{"type":"attachment","attachment":{"type":"hook_blocking_error","hookName":"PreToolUse:Bash","blockingError":{"blockingError":"no rm","command":"/h.sh"}}}`,
			[]string{"attachment//hook_blocking_error/blockingError.blockingError=no rm"}},
		{`{"type":"attachment","attachment":{"type":"task_reminder","content":[{"id":"1","subject":"write docs","description":"for grep","status":"pending"}],"itemCount":1}}`,
			[]string{"attachment//task_reminder/content.subject=write docs", "attachment//task_reminder/content.description=for grep"}},
		{`{"type":"attachment","attachment":{"type":"skill_listing","content":"- dataviz: test"}}`, nil},
		// As 2.1.328 writes a UserPromptSubmit hook's output: content is the
		// trimmed stdout, one string.
		{`{"type":"attachment","attachment":{"type":"hook_success","content":"ctx word","stdout":"ctx word\n","stderr":"","command":"/h.sh"}}`,
			[]string{"attachment//hook_success/content=ctx word"}},
		{`{"type":"queue-operation","operation":"enqueue","content":"typed while busy"}`, nil},
		{`{"type":"last-prompt","lastPrompt":"fix the flaky test"}`, nil},
	}
	for _, tt := range tests {
		var got []string
		if _, err := walkContent([]byte(tt.line), names, func(p *Place, text []byte) bool {
			got = append(got, p.Where+"/"+p.Tool+"/"+p.Attachment+"/"+p.Field+"="+string(text))
			return true
		}); err != nil {
			t.Fatalf("%s: %v", tt.line, err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.line, got, tt.want)
		}
	}
	if _, err := walkContent([]byte(`{"type":`), nil, func(*Place, []byte) bool { return true }); err == nil {
		t.Error("a broken line walked without an error")
	}
}

// TestTextMatcher: occurrences and snippet offsets, in characters.
func TestTextMatcher(t *testing.T) {
	tests := []struct {
		term, text string
		want       []string // each occurrence as it stands in text
	}{
		{"flaky", "Flaky and FLAKY", []string{"Flaky", "FLAKY"}},
		{"STRASSE", "straße", []string{"straße"}}, // full folding, ASCII terms too
		{"file", "a proﬁle, a FILE", []string{"ﬁle", "FILE"}},
		{"STRAẞE", "die Straße, die STRASSE", []string{"Straße", "STRASSE"}},
		{"σίσυφος", "ΣΊΣΥΦΟΣ ος", []string{"ΣΊΣΥΦΟΣ"}},
		{"ſs", "Maß", []string{"ß"}}, // within one character's folding: the character
	}
	for _, tt := range tests {
		m := newTextMatcher(tt.term)
		var sc textScratch
		var got []string
		m.each([]byte(tt.text), &sc, func(s, e int) bool {
			got = append(got, tt.text[s:e])
			snip, a, b := snippet([]byte(tt.text), s, e, 2)
			if r := []rune(snip); string(r[a:b]) != tt.text[s:e] {
				t.Errorf("%q in %q: snippet %q [%d:%d] is %q", tt.term, tt.text, snip, a, b, string(r[a:b]))
			}
			return true
		})
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q in %q: %q, want %q", tt.term, tt.text, got, tt.want)
		}
	}
	snip, a, b := snippet([]byte("ééé needle ééé"), 7, 13, 3)
	if snip != "éé needle éé" || a != 3 || b != 9 {
		t.Errorf("snippet = %q %d %d", snip, a, b)
	}
}

// TestContentSession: a term in metadata or boilerplate does not match;
// in content it does, with a quote the raw bytes hold escaped; Matches
// lists every hit in order, and only for a matching session.
func TestContentSession(t *testing.T) {
	main := strings.Join([]string{
		`{"type":"attachment","attachment":{"type":"skill_listing","content":"- widget: build a widget"}}`,
		`{"type":"user","uuid":"u1","timestamp":"2026-01-01T00:00:00.000Z","message":{"content":"say \"hi\" to the Widget"}}`,
		`{"type":"user","message":{"content":[{"tool_use_id":"t9","type":"tool_result","content":"done","is_error":true}]}}`,
	}, "\n") + "\n"
	p := session(t, "s.jsonl", main, map[string]string{"tool-results/x.txt": "log\nthe error is here\n"})
	for _, tt := range []struct {
		terms []string
		any   bool
		want  bool
	}{
		{[]string{"is_error"}, false, false},
		{[]string{"skill_listing"}, false, false},
		{[]string{"say \"HI\""}, false, true},
		{[]string{`"`}, false, true},   // all escapable: no raw pass, every line decoded
		{[]string{`\\`}, false, false}, // no backslash was said
		{[]string{"widget", "error"}, false, true},
		{[]string{"widget", "absent"}, false, false},
		{[]string{"absent", "build a"}, true, false},
		{[]string{"absent", "the error"}, true, true},
	} {
		for _, bs := range []int{16, 1 << 16} {
			if res := search(t, Options{Terms: tt.terms, Any: tt.any, BufSize: bs}, p); res.Matched != tt.want || len(res.Errs) > 0 {
				t.Errorf("%q any=%v buffer %d: matched %v (errors %v), want %v", tt.terms, tt.any, bs, res.Matched, res.Errs, tt.want)
			}
		}
	}
	res := search(t, Options{Terms: []string{"widget", "error"}, Matches: true, Context: 4}, p)
	var got []string
	for _, h := range res.Hits {
		got = append(got, h.Where+" "+h.UUID+" "+string([]rune(h.Snippet)[h.Start:h.End])+" in "+h.Snippet)
	}
	want := []string{"prompt u1 Widget in the Widget", "tool_result  error in the error is "}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hits %q, want %q", got, want)
	}
	if res := search(t, Options{Terms: []string{"widget", "absent"}, Matches: true}, p); len(res.Hits) != 0 {
		t.Errorf("a session that does not match gave hits %+v", res.Hits)
	}
	if _, err := New(Options{Terms: []string{"x"}, Raw: true, Matches: true}); err == nil {
		t.Error("Raw with Matches accepted")
	}
}

// FuzzWalkContent: a transcript line is outside input. The walk never
// panics, and every string it hands out is one that encoding/json decodes
// from the line.
func FuzzWalkContent(f *testing.F) {
	f.Add(`{"type":"user","message":{"content":"hi \u00e9 \"q\""}}`)
	f.Add(`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{"a":[1,"x",{"b":"y"}]}}]}}`)
	f.Add(`{"type":"attachment","attachment":{"type":"task_reminder","content":[{"subject":"s"},"z",3]}}`)
	f.Add(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"\ud800"}]}]}}`)
	f.Fuzz(func(t *testing.T, line string) {
		var texts []string
		_, err := walkContent([]byte(line), map[string]string{}, func(_ *Place, text []byte) bool {
			texts = append(texts, string(text))
			return true
		})
		var v any
		if json.Unmarshal([]byte(line), &v) != nil {
			return // err or not, nothing to compare with
		}
		if err != nil {
			if _, isObj := v.(map[string]any); isObj {
				t.Fatalf("walkContent(%q): %v, encoding/json decodes it", line, err)
			}
			return
		}
		all := map[string]bool{}
		var collect func(any)
		collect = func(v any) {
			switch v := v.(type) {
			case string:
				all[v] = true
			case []any:
				for _, e := range v {
					collect(e)
				}
			case map[string]any:
				for _, e := range v {
					collect(e)
				}
			}
		}
		collect(v)
		for _, s := range texts {
			if !all[s] {
				t.Fatalf("walkContent(%q) gave %q, not a string of the line", line, s)
			}
		}
	})
}
