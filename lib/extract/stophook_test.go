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

// stopJSONBlock is what 2.1.328 writes for a Stop hook that blocks with
// {"decision":"block"} (from TestHookBlockIsOneFailure, trimmed): the
// feedback prompt, a hook_blocking_error attachment with the same reason
// (timestamped before it), and the summary; subagentJSONBlock the same
// for SubagentStop, in the subagent's transcript.
const stopJSONBlock = `{"type":"user","isMeta":true,"message":{"role":"user","content":"Stop hook feedback:\nBLOCK-REASON-stop-json"},"uuid":"u1","timestamp":"2026-12-01T20:47:37.580Z","sessionId":"s"}
{"type":"attachment","attachment":{"type":"hook_blocking_error","hookName":"Stop","toolUseID":"T1","hookEvent":"Stop","blockingError":{"blockingError":"BLOCK-REASON-stop-json","command":"/h/stop.sh"}},"uuid":"u2","timestamp":"2026-12-01T20:47:37.579Z","sessionId":"s"}
{"type":"system","subtype":"stop_hook_summary","hookErrors":["BLOCK-REASON-stop-json"],"failedHookErrorIndexes":[],"toolUseID":"T1","uuid":"u3","timestamp":"2026-12-01T20:47:37.610Z","sessionId":"s"}
`

const subagentJSONBlock = `{"type":"user","isMeta":true,"isSidechain":true,"agentId":"a1","message":{"role":"user","content":"Stop hook feedback:\nBLOCK-REASON-sub"},"uuid":"u4","timestamp":"2026-12-01T20:47:52.579Z","sessionId":"s"}
{"type":"attachment","isSidechain":true,"agentId":"a1","attachment":{"type":"hook_blocking_error","hookName":"SubagentStop","toolUseID":"T2","hookEvent":"SubagentStop","blockingError":{"blockingError":"BLOCK-REASON-sub","command":"/h/sub.sh"}},"uuid":"u5","timestamp":"2026-12-01T20:47:52.556Z","sessionId":"s"}
`

// TestHookBlockRecordsAreOneFailure is issue 23 item 3: a block written
// as two records is one failure, in either order; two blocks with the
// same reason are two.
func TestHookBlockRecordsAreOneFailure(t *testing.T) {
	lines := strings.SplitAfter(stopJSONBlock, "\n")
	swapped := lines[1] + lines[0] + lines[2]
	exit2 := strings.SplitAfter(stopBlock, "\n")[0] // the feedback prompt alone
	tests := []struct {
		name, in string
		want     []string // the hook of each failure
	}{
		{"feedback then attachment", stopJSONBlock, []string{"Stop"}},
		{"attachment then feedback", swapped, []string{"Stop"}},
		{"subagent", subagentJSONBlock, []string{"SubagentStop"}},
		{"two blocks, same reason", stopJSONBlock + stopJSONBlock, []string{"Stop", "Stop"}},
		{"an exit-2 block then a JSON one", exit2 + stopJSONBlock, []string{"Stop", "Stop"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "t.jsonl")
			if err := os.WriteFile(p, []byte(tt.in), 0o644); err != nil {
				t.Fatal(err)
			}
			var hooks []string
			for _, l := range strings.Split(strings.TrimSpace(run(t, Options{Kind: "failures"}, []string{p}, dir)), "\n") {
				if !strings.Contains(l, `"kind":"hook_blocked"`) {
					t.Errorf("not a hook_blocked: %s", l)
				}
				_, h, _ := strings.Cut(l, `"hook":"`)
				h, _, _ = strings.Cut(h, `"`)
				hooks = append(hooks, h)
			}
			if strings.Join(hooks, ",") != strings.Join(tt.want, ",") {
				t.Errorf("hooks %v, want %v", hooks, tt.want)
			}
		})
	}
}
