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

// Blackbox's chat-json fixture converts to the cassette its repository
// holds: the same hashes, step for step (the spec quotes the last).
func TestImportChatJSONFixture(t *testing.T) {
	data, err := os.ReadFile("testdata/blackbox/chat-tool-use.foreign.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ImportChatJSON(doc, ImportOptions{ID: "external-chat-tool-use"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"69d4a128e6afadc5a0e16b10b8b712bd14c1925a1d7c8bd4ec2880af1df04484", "849edad3888c17926cb07866ea22180c07ea3a12c63863371ee3930415c16118",
		"2c8c644615396142221f18d815c8918dcffa3ed588c12bf4019dcd8a11c0e70c", "4aefc2eb66e7668e141d5ff72cca63771caf9e83bc49223cea0be883e32d085b",
		"b8524219c2e8265cf3d19a39fa0ad3aabd6465806680a7720977dc4ec43e55ce", "af3c89674c19ba2c9e6954fdf6319c61ef97c1882fcdad1fd37ffb92234d6bf9",
		"180fd4ee8cb7b71898d3f7f2f6ed751095ab871f65245a684bb5cdc1f769ff5d", "cbc812a32df575a7a44785b93b9ac9ef4d78f986fb43b6cbdd93e337f3dfa5a1",
		"79dc20228dc5541731c326f4fdaa17b3d337f6e0da8a72494d689911c67ca5a5", "5407ffb0cdc8c13fcdbf9e30ad093990b04adee52e6491a06442cf35b845c9cf",
		"e3837b693496eb0df4b34183a220bc41522ae2e4fb73f0c8336aabd3bf4bec76"}
	if len(c.Steps) != len(want) {
		t.Fatalf("%d steps, want %d", len(c.Steps), len(want))
	}
	for i, w := range want {
		if h, _ := c.Steps[i].GetString("hash"); h != w {
			t.Errorf("step %d hash %s, want %s", i, h, w)
		}
	}
	if at, _ := c.Header.Get("createdAt"); at.num != 1710500000000 {
		t.Errorf("createdAt %v", at.num)
	}
	if r := Verify(c); !r.Pass {
		t.Errorf("verify: %+v", r.FirstFailure)
	}
	for _, bad := range []string{`[]`, `{"messages":[]}`, `{"messages":[{"role":"user","content":"x","timestamp":0},{"role":"assistant","content":"","timestamp":1}]}`,
		`{"messages":[{"role":"user","content":"x","timestamp":5},{"role":"assistant","content":"y","timestamp":1}]}`} {
		doc, _ := Parse([]byte(bad))
		if _, err := ImportChatJSON(doc, ImportOptions{}); err == nil {
			t.Errorf("ImportChatJSON(%s) succeeded", bad)
		}
	}
}
