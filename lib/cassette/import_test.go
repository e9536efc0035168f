package cassette

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

func importFile(t *testing.T, path string, opts ImportOptions) Cassette {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	im := NewClaudeCodeImporter(opts)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	n := 0
	for sc.Scan() {
		n++
		if err := im.Add(sc.Bytes(), n); err != nil {
			t.Fatal(err)
		}
	}
	c, err := im.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The worked example of spec 10.1.
func TestImportWorkedExample(t *testing.T) {
	c := importFile(t, "testdata/blackbox/claude-code-session.jsonl", ImportOptions{})
	if at, _ := c.Header.Get("createdAt"); at.num != 1790672400000 {
		t.Errorf("createdAt %v", at.num)
	}
	want := []struct {
		typ string
		ts  int64
	}{{ModelInput, 401000}, {ModelOutput, 401000}, {ToolCall, 406000}, {ToolResult, 406000},
		{ToolCall, 409000}, {ToolResult, 409000}, {ModelInput, 410000}, {ModelOutput, 410000}, {Metadata, 410000}}
	if len(c.Steps) != len(want) {
		t.Fatalf("%d steps, want %d", len(c.Steps), len(want))
	}
	for i, w := range want {
		s, err := DecodeStep(c.Steps[i])
		if err != nil {
			t.Fatal(err)
		}
		if s.Type != w.typ || s.Timestamp != 1790672000000+w.ts {
			t.Errorf("step %d: %s at %d, want %s at …%d", i, s.Type, s.Timestamp, w.typ, w.ts)
		}
	}
	js := func(i int) string { p, _ := c.Steps[i].Get("payload"); b, _ := AppendJS(nil, p); return string(b) }
	if got := js(1); got != `{"type":"tool_calls","calls":[{"toolCallId":"call-0","toolName":"Read","toolInput":{"file_path":"config/tax.json"}},{"toolCallId":"call-1","toolName":"Bash","toolInput":{"command":"npm test -- checkout"}}],"text":"I'll read the tax config and run the failing test in parallel."}` {
		t.Errorf("step 1: %s", got)
	}
	if got := js(3); got != `{"toolCallId":"call-0","toolName":"Read","result":{"EU":{"vatIncluded":false,"rate":0.2}}}` {
		t.Errorf("step 3: %s", got)
	}
	if got := js(5); !strings.HasPrefix(got, `{"toolCallId":"call-1","toolName":"Bash","error":"FAIL checkout.test.ts: `) {
		t.Errorf("step 5: %s", got)
	}
	p6, _ := c.Steps[6].Get("payload")
	if m, _ := p6.Get("messages"); len(m.Items()) != 3 {
		t.Errorf("step 6 has %d messages", len(m.Items()))
	}
	if p0, _ := c.Steps[0].Get("payload"); true {
		if m, _ := p0.Get("messages"); len(m.Items()) != 1 {
			t.Errorf("step 0 has %d messages", len(m.Items()))
		}
	}
	r := Verify(c)
	if !r.Pass || r.Status != StatusSuccess {
		t.Errorf("verify: %+v", r)
	}
	if got := ToolSequence(c); strings.Join(got, ",") != "Read,Bash" {
		t.Errorf("tools %v", got)
	}
}
