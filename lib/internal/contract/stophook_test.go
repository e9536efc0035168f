package contract

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// A Stop hook that blocks once (exit 2) is one failure: cc-extract
// failures gives one hook_blocked for it, and no hook_error (issue 13
// item 7: the stop_hook_summary's hookErrors holds the block's reason with
// failedHookErrorIndexes empty, which is not a failed hook).
func TestExtractStopHookBlockOnce(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("First answer.")}},
		{Match: "Stop hook feedback", Blocks: []fakeapi.Block{fakeapi.Text("Fixed it.")}},
	}}})
	dir := e.Project("stophook")
	flag := filepath.Join(e.Root, "blocked-once")
	hook := e.WriteFile("stop.sh", "#!/bin/sh\nif [ ! -e "+flag+" ]; then touch "+flag+"; echo 'tests fail: fix them' >&2; exit 2; fi\nexit 0\n", 0o755)
	settings := map[string]any{"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hook}}}}}}
	res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "answer", Settings: settings})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d: %s", res.ExitCode, res.Stderr)
	}
	paths := e.Transcripts()
	if len(paths) != 1 {
		t.Fatalf("transcripts: %v", paths)
	}
	if out := os.Getenv("CCPIPE_KEEP_TRANSCRIPT"); out != "" {
		b, _ := os.ReadFile(paths[0])
		os.WriteFile(out, b, 0o644)
	}
	facts := ccExtract(t, "failures", paths[0])
	kinds := map[string]int{}
	for _, f := range facts {
		kinds[f["kind"].(string)]++
	}
	if kinds["hook_blocked"] != 1 || kinds["hook_error"] != 0 || len(facts) != 1 {
		t.Errorf("failures of one Stop block: %v", facts)
	}
}

// A Stop hook that fails without blocking (exit 1) is one hook_error.
func TestExtractStopHookFailureOnce(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("First answer.")}},
	}}})
	dir := e.Project("stopfail")
	hook := e.WriteFile("stop.sh", "#!/bin/sh\necho 'hook crashed' >&2\nexit 1\n", 0o755)
	settings := map[string]any{"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hook}}}}}}
	res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "answer", Settings: settings})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d: %s", res.ExitCode, res.Stderr)
	}
	paths := e.Transcripts()
	if len(paths) != 1 {
		t.Fatalf("transcripts: %v", paths)
	}
	if out := os.Getenv("CCPIPE_KEEP_TRANSCRIPT"); out != "" {
		b, _ := os.ReadFile(paths[0])
		os.WriteFile(out+".fail", b, 0o644)
	}
	facts := ccExtract(t, "failures", paths[0])
	if len(facts) != 1 || facts[0]["kind"] != "hook_error" {
		t.Errorf("failures of one failed Stop hook: %v", facts)
	}
}
