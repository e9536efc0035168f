package cassette

import (
	"bytes"
	"io"
	"os"
	"testing"
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
// always verifies.
func FuzzImport(f *testing.F) {
	data, _ := os.ReadFile("testdata/blackbox/claude-code-session.jsonl")
	f.Add(data)
	f.Add([]byte(`{"type":"user","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}` + "\n" +
		`{"type":"assistant","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]}}`))
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
	})
}
