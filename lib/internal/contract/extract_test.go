package contract

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/ccpipe/ccpipe/lib/commands/ccextract"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// ccExtract runs cc-extract in-process and decodes its facts.
func ccExtract(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	var out, errb bytes.Buffer
	if code := ccextract.Run(args, nil, &out, &errb); code != 0 || errb.Len() > 0 {
		t.Fatalf("cc-extract %v: exit %d: %s", args, code, errb.String())
	}
	var facts []map[string]any
	dec := json.NewDecoder(&out)
	for dec.More() {
		var f map[string]any
		if err := dec.Decode(&f); err != nil {
			t.Fatal(err)
		}
		facts = append(facts, f)
	}
	return facts
}

// One API message with two parallel Bash calls (one exits 5), then a
// second message: cc-extract joins both results to their calls in call
// order, parses the exit code from the real "Exit code N" text, and counts
// each message's usage once although the CLI repeats it on every block
// record.
func TestExtractParallelCallsAndUsage(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{
			fakeapi.Text("Two at once."),
			fakeapi.ToolUse("Bash", map[string]any{"command": "echo fails-now; exit 5"}),
			fakeapi.ToolUse("Bash", map[string]any{"command": "echo par-two"}),
		}, Usage: &fakeapi.Usage{InputTokens: 1000, OutputTokens: 50, CacheReadInputTokens: 7000, CacheCreationInputTokens: 300}},
		{Match: "par-two", Blocks: []fakeapi.Block{fakeapi.Text("Done.")}, Usage: &fakeapi.Usage{InputTokens: 200, OutputTokens: 10}},
	}}})
	dir := e.Project("extract")
	res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "run both", AllowedTools: []string{"Bash"}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d: %s", res.ExitCode, res.Stderr)
	}
	paths := e.Transcripts()
	if len(paths) != 1 {
		t.Fatalf("transcripts: %v", paths)
	}
	shell := ccExtract(t, "shell", paths[0])
	if len(shell) != 2 {
		t.Fatalf("shell facts: %v", shell)
	}
	if shell[0]["exit_code"] != 5.0 || shell[0]["is_error"] != true || shell[0]["output"] != "fails-now" {
		t.Errorf("first call: %v", shell[0])
	}
	if shell[1]["exit_code"] != 0.0 || shell[1]["is_error"] != false || shell[1]["output"] != "par-two" {
		t.Errorf("second call: %v", shell[1])
	}
	sums := ccExtract(t, "usage", "--sum", "session", paths[0])
	if len(sums) != 1 {
		t.Fatalf("usage sums: %v", sums)
	}
	s := sums[0]
	if s["input_tokens"] != 1200.0 || s["output_tokens"] != 60.0 || s["cache_read_input_tokens"] != 7000.0 ||
		s["cache_creation_input_tokens"] != 300.0 || s["messages"] != 2.0 {
		t.Errorf("usage: %v", s)
	}
	texts := ccExtract(t, "conversation", paths[0])
	var got []string
	for _, f := range texts {
		got = append(got, f["role"].(string)+":"+f["text"].(string))
	}
	if want := []string{"user:run both", "assistant:Two at once.", "assistant:Done."}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("conversation: %q", got)
	}
}
