package contract

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// Subagents run concurrently with the main loop (the background one is
// the 2.1.328 default): their requests offer tools but start with their
// own prompt, so they are side calls; the main loop's steps stay in
// order, and replay answers both offline.
func TestCassetteSubagents(t *testing.T) {
	Require(t)
	t.Parallel()
	bash := func(c string) fakeapi.Block { return fakeapi.ToolUse("Bash", map[string]any{"command": c}) }
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Match: "Delegate two checks", Blocks: []fakeapi.Block{fakeapi.ToolUse("Agent", map[string]any{
			"description": "Foreground check", "subagent_type": "general-purpose", "run_in_background": false,
			"prompt": "FG-AGENT-TASK: run echo fg-sub-ok and report."})}},
		{Match: "FG-AGENT-TASK", Blocks: []fakeapi.Block{bash("echo fg-sub-ok")}},
		{Match: "fg-sub-ok", Blocks: []fakeapi.Block{fakeapi.Text("Foreground report: fg-sub-ok")}},
		{Match: "Foreground report", Blocks: []fakeapi.Block{fakeapi.ToolUse("Agent", map[string]any{
			"description": "Background check", "subagent_type": "general-purpose",
			"prompt": "BG-AGENT-TASK: run echo bg-sub-ok and report."})}},
		{Match: "BG-AGENT-TASK", Blocks: []fakeapi.Block{bash("sleep 1; echo bg-sub-ok")}},
		{Match: "bg-sub-ok", Blocks: []fakeapi.Block{fakeapi.Text("Background report: bg-sub-ok")}},
		{Match: "(?i)async agent launched", Blocks: []fakeapi.Block{fakeapi.Text("The background check is running.")}},
		{Match: "task-notification", Blocks: []fakeapi.Block{fakeapi.Text("Both subagents reported.")}},
	}}})
	dir := e.Project("agents")
	run := filepath.Join(e.Root, "agents.ndjson")
	claude := []string{"--", e.Bin, "-p", "Delegate two checks to subagents.", "--allowedTools", "Bash,Agent"}
	code, out, errs := ccCassette(t, e, dir, append([]string{"record", "--out", run}, claude...)...)
	if code != 0 || !strings.Contains(out, "Both subagents reported.") {
		t.Fatalf("record: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	_, steps := readCassette(t, run)
	var mainOut []string
	sides := 0
	for _, s := range steps {
		p, _ := s.Payload.(map[string]any)
		switch {
		case s.Type == "model_output":
			if txt, ok := p["text"].(string); ok {
				mainOut = append(mainOut, txt)
			} else {
				mainOut = append(mainOut, p["type"].(string))
			}
		case p["event"] == "side_call":
			sides++
		}
	}
	t.Logf("main outputs %q, %d side calls", mainOut, sides)
	if sides < 4 || strings.Join(mainOut, "|") != "tool_calls|tool_calls|The background check is running.|Both subagents reported." {
		t.Errorf("main loop outputs %q, %d side calls (want the 4 subagent calls)", mainOut, sides)
	}
	_ = e.API.Close()
	code, out2, errs := ccCassette(t, e, dir, append([]string{"replay", run}, claude...)...)
	if code != 0 || out2 != out {
		t.Errorf("replay: exit %d\nstdout: %q, recorded %q\nstderr: %s", code, out2, out, errs)
	}
}
