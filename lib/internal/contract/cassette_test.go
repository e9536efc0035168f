package contract

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/cccassette"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// A fresh real-CLI session with two parallel calls (one failing) imports
// into a cassette that verifies: two tool_call steps in call order with
// the real inputs, the failure as an error result, the final answer as
// run_completed, and no provider id (toolu_, msg_) anywhere.
func TestCassetteImportFreshSession(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{
			fakeapi.Text("Both at once."),
			fakeapi.ToolUse("Bash", map[string]any{"command": "echo cas-one"}),
			fakeapi.ToolUse("Bash", map[string]any{"command": "echo cas-two; exit 4"}),
		}},
		{Match: "cas-two", Blocks: []fakeapi.Block{fakeapi.Text("Cassette done.")}},
	}}})
	dir := e.Project("cassette")
	res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "run both", AllowedTools: []string{"Bash"}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d: %s", res.ExitCode, res.Stderr)
	}
	paths := e.Transcripts()
	if len(paths) != 1 {
		t.Fatalf("transcripts: %v", paths)
	}
	var out, errb bytes.Buffer
	if code := cccassette.RunWith(cli.System{}, []string{"import", paths[0]}, nil, &out, &errb); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errb.String())
	}
	if strings.Contains(out.String(), "toolu_") || strings.Contains(out.String(), "msg_") {
		t.Error("a provider id reached the cassette")
	}
	cs, err := cassette.ReadAll(&out)
	if err != nil || len(cs) != 1 {
		t.Fatalf("%v", err)
	}
	c := cs[0]
	if r := cassette.Verify(c); !r.Pass || r.Status != cassette.StatusSuccess {
		t.Fatalf("verify: %+v", r)
	}
	var calls, results []string
	for _, s := range c.Steps {
		typ, _ := s.GetString("type")
		p, _ := s.Get("payload")
		b, _ := cassette.AppendJS(nil, p)
		switch typ {
		case cassette.ToolCall:
			calls = append(calls, string(b))
		case cassette.ToolResult:
			results = append(results, string(b))
		}
	}
	if len(calls) != 2 || calls[0] != `{"toolCallId":"call-0","toolName":"Bash","toolInput":{"command":"echo cas-one"}}` ||
		calls[1] != `{"toolCallId":"call-1","toolName":"Bash","toolInput":{"command":"echo cas-two; exit 4"}}` {
		t.Errorf("tool_call steps: %v", calls)
	}
	if len(results) != 2 || !strings.Contains(results[0], `"result":"cas-one"`) || !strings.Contains(results[1], `"error":"Exit code 4`) {
		t.Errorf("tool_result steps: %v", results)
	}
	if a, _ := cassette.OutcomeOfCassette(c).Answer(); a != "Cassette done." {
		t.Errorf("final answer %q", a)
	}
}
