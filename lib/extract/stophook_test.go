package extract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stopBlock is what Claude Code 2.1.328 writes for a Stop hook that exits 2
// once (from TestExtractStopHookBlockOnce in the contract suite, trimmed):
// the meta prompt, then a stop_hook_summary whose hookErrors holds the
// same reason with failedHookErrorIndexes empty.
const stopBlock = `{"type":"user","message":{"role":"user","content":"Stop hook feedback:\n[/h/stop.sh]: tests fail: fix them\n"},"isMeta":true,"uuid":"u1","timestamp":"2026-12-01T14:10:43.098Z","sessionId":"s"}
{"type":"system","subtype":"stop_hook_summary","hookCount":1,"hookInfos":[{"command":"/h/stop.sh"}],"hookErrors":["[/h/stop.sh]: tests fail: fix them\n"],"failedHookErrorIndexes":[],"preventedContinuation":false,"stopReason":"","hasOutput":true,"level":"suggestion","timestamp":"2026-12-01T14:10:43.101Z","uuid":"u2","sessionId":"s"}
`

// failedStop is a stop_hook_summary of two hooks, the second failed
// (non-blocking): one hook_error.
const failedStop = `{"type":"system","subtype":"stop_hook_summary","hookCount":2,"hookInfos":[],"hookErrors":["[a]: blocked\n","[b]: crashed\n"],"failedHookErrorIndexes":[1],"timestamp":"2026-12-01T14:10:44.000Z","uuid":"u3","sessionId":"s"}
`

// TestStopHookBlockIsOneFailure is issue 13 item 7.
func TestStopHookBlockIsOneFailure(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(p, []byte(stopBlock+failedStop), 0o644); err != nil {
		t.Fatal(err)
	}
	out := run(t, Options{Kind: "failures"}, []string{p}, dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"kind":"hook_blocked"`) ||
		!strings.Contains(lines[1], `"kind":"hook_error"`) || !strings.Contains(lines[1], `[b]: crashed`) {
		t.Errorf("failures:\n%s", out)
	}
}

// stopFailure is what 2.1.328 writes for a Stop hook that exits 1 (from
// TestExtractStopHookFailureOnce, trimmed): an attachment and a summary
// with the same toolUseID, one failure.
const stopFailure = `{"type":"attachment","attachment":{"type":"hook_non_blocking_error","hookName":"Stop","toolUseID":"T1","hookEvent":"Stop","stderr":"Failed with non-blocking status code: hook crashed","stdout":"","exitCode":1,"command":"/h/stop.sh"},"uuid":"u4","timestamp":"2026-12-01T14:28:23.994Z","sessionId":"s"}
{"type":"system","subtype":"stop_hook_summary","hookCount":1,"hookInfos":[],"hookErrors":["Failed with non-blocking status code: hook crashed"],"failedHookErrorIndexes":[0],"toolUseID":"T1","timestamp":"2026-12-01T14:28:24.000Z","uuid":"u5","sessionId":"s"}
`

func TestStopHookFailureIsOneFailure(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(p, []byte(stopFailure), 0o644); err != nil {
		t.Fatal(err)
	}
	out := run(t, Options{Kind: "failures"}, []string{p}, dir)
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, `"kind":"hook_error"`) || !strings.Contains(out, `"exit_code"`) {
		t.Errorf("failures:\n%s", out)
	}
}
