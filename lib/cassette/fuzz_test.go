package cassette

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// FuzzParse: Parse never panics, and what it accepts encodes to canonical
// text that parses back to the same canonical text.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x\u0000",null,true]}`, `"\ud800"`, `1e400`, `{"10":1,"9":2}`, "\"\xff\"", `[[[]]]`, `-0`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if err != nil {
			return
		}
		c, err := AppendCanonical(nil, v)
		if err != nil {
			return // a non-finite number
		}
		v2, err := Parse(c)
		if err != nil {
			t.Fatalf("canonical text %q does not parse: %v", c, err)
		}
		c2, _ := AppendCanonical(nil, v2)
		if !bytes.Equal(c, c2) {
			t.Fatalf("canonical text not stable: %q then %q", c, c2)
		}
		js, _ := AppendJS(nil, v)
		ind, _ := AppendIndent(nil, v)
		v3, err1 := Parse(js)
		v4, err2 := Parse(ind)
		if err1 != nil || err2 != nil || !Equal(v, v3) || !Equal(v, v4) {
			t.Fatalf("JS forms do not read back: %v %v", err1, err2)
		}
	})
}

// FuzzReader: the cassette reader never panics and always ends.
func FuzzReader(f *testing.F) {
	f.Add([]byte("{\"version\":2,\"id\":\"x\",\"createdAt\":0}\n{\"index\":0}\n"))
	f.Add([]byte("{\n\"version\":2,\"steps\":[{}]}"))
	f.Add([]byte("{\"version\":2,\"steps\":[]}\n{\"version\":2}\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data))
		for i := 0; i <= len(data)+1; i++ {
			if _, err := r.Next(); err != nil {
				if err == io.EOF || err.Error() != "" {
					return
				}
			}
		}
		t.Fatal("reader did not end")
	})
}

// FuzzImport: the Claude Code importer never panics, and what it builds
// always verifies; no model_input's history holds an empty human message
// (Blackbox drops them); call ids are unique; a run that ends without
// run_completed ends on a tool step (a cut-off or a tool round) or has
// no step (model turns without content). Seeds:
// Blackbox's worked example and every crafted edge case
// (testdata/ccedges).
func FuzzImport(f *testing.F) {
	data, _ := os.ReadFile("testdata/blackbox/claude-code-session.jsonl")
	f.Add(data)
	f.Add([]byte(`{"type":"user","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}` + "\n" +
		`{"type":"assistant","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]}}`))
	cases, _ := filepath.Glob("testdata/ccedges/*.txtar")
	for _, p := range cases {
		if ar, err := txtar.ParseFile(p); err == nil {
			for _, file := range ar.Files {
				if file.Name == "transcript.jsonl" {
					f.Add(file.Data)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		im := NewClaudeCodeImporter(ImportOptions{WithUsage: true, KeepThinking: true})
		for i, line := range bytes.Split(data, []byte("\n")) {
			if im.Add(line, i+1) != nil {
				return
			}
		}
		c, err := im.Finish()
		if err != nil {
			return
		}
		if r := Verify(c); !r.Pass && r.FirstFailure.Name != CheckNeutrality {
			t.Fatalf("an imported cassette fails verify: %+v", r.FirstFailure)
		}
		calls := map[string]bool{}
		var last string
		for i, s := range c.Steps {
			typ, _ := s.GetString("type")
			p, _ := s.Get("payload")
			switch typ {
			case ModelInput:
				msgs, _ := p.Get("messages")
				for _, m := range msgs.Items() {
					if role, _ := m.GetString("role"); role == "user" {
						if text, ok := m.GetString("content"); ok && text == "" {
							t.Fatalf("step %d: an empty human message in the history", i)
						}
					}
				}
			case ToolCall:
				id, _ := p.GetString("toolCallId")
				if calls[id] {
					t.Fatalf("step %d: call id %q twice", i, id)
				}
				calls[id] = true
			}
			if typ != Metadata || !isUsage(p) {
				last = typ
			}
		}
		if last != "" && last != Metadata && last != ToolCall && last != ToolResult {
			t.Fatalf("the run ends on a %s step", last)
		}
	})
}

// isUsage says a metadata payload is a --with-usage step.
func isUsage(p Value) bool {
	e, _ := p.GetString("event")
	return e == "model_usage"
}
