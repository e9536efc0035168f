package contract

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/commands/ccrender"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// One block, one failure (issue 23 item 3): each blocking hook event, by
// exit code 2 and by a JSON reply, run with the real binary, is one record
// of cc-extract failures and one entry on a cc-render page, however many
// records Claude Code writes for it. What 2.1.328 writes, event by event:
//   - Stop, exit 2: a meta prompt "Stop hook feedback:\n<reason>" and a
//     stop_hook_summary whose hookErrors holds the reason
//     (failedHookErrorIndexes empty);
//   - Stop, {"decision":"block"}: the same, plus a hook_blocking_error
//     attachment (hookEvent Stop) with the reason;
//   - SubagentStop: the same two shapes in the subagent's transcript (the
//     prompt also reads "Stop hook feedback"), no summary;
//   - UserPromptSubmit, either way: one system/informational record with
//     promptSubmitEnding blocked_by_hook;
//   - PostToolUse, either way, and PostToolUseFailure by exit 2 (beside
//     the tool's own tool_error): one hook_blocking_error attachment;
//   - PostToolBatch by exit 2: one hook_stopped_continuation attachment;
//   - PreToolUse, exit 2 or a deny: the tool_result is the error
//     ("PreToolUse:Bash hook error: ..."), a denial.
func TestHookBlockIsOneFailure(t *testing.T) {
	Require(t)
	t.Parallel()
	bash := []fakeapi.Turn{{Blocks: []fakeapi.Block{fakeapi.Text("Running."), fakeapi.ToolUse("Bash", map[string]any{"command": "echo ran-it"})}}}
	failing := []fakeapi.Turn{{Blocks: []fakeapi.Block{fakeapi.ToolUse("Bash", map[string]any{"command": "false"})}}}
	agent := []fakeapi.Turn{{Blocks: []fakeapi.Block{fakeapi.ToolUse("Agent", map[string]any{
		"description": "Sub check", "subagent_type": "general-purpose", "run_in_background": false, "prompt": "SUBTASK: report."})}}}
	exit2 := func(reason string) string { return "echo '" + reason + "' >&2; exit 2" }
	reply := func(json string) func(string) string {
		return func(reason string) string { return "echo '" + strings.ReplaceAll(json, "REASON", reason) + "'" }
	}
	block := reply(`{"decision":"block","reason":"REASON"}`)
	deny := reply(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"REASON"}}`)
	cases := []struct {
		name, event, matcher string
		hook                 func(reason string) string
		turns                []fakeapi.Turn
		tools                []string
		kind, hookName       string
	}{
		{"stop-exit2", "Stop", "", exit2, nil, nil, "hook_blocked", "Stop"},
		{"stop-json", "Stop", "", block, nil, nil, "hook_blocked", "Stop"},
		{"subagentstop-exit2", "SubagentStop", "", exit2, agent, []string{"Agent"}, "hook_blocked", "SubagentStop"},
		{"subagentstop-json", "SubagentStop", "", block, agent, []string{"Agent"}, "hook_blocked", "SubagentStop"},
		{"userpromptsubmit-exit2", "UserPromptSubmit", "", exit2, nil, nil, "hook_blocked", "UserPromptSubmit"},
		{"userpromptsubmit-json", "UserPromptSubmit", "", block, nil, nil, "hook_blocked", "UserPromptSubmit"},
		{"posttooluse-exit2", "PostToolUse", "Bash", exit2, bash, []string{"Bash"}, "hook_blocked", "PostToolUse:Bash"},
		{"posttooluse-json", "PostToolUse", "Bash", block, bash, []string{"Bash"}, "hook_blocked", "PostToolUse:Bash"},
		{"posttoolusefailure-exit2", "PostToolUseFailure", "Bash", exit2, failing, []string{"Bash"}, "hook_blocked", "PostToolUseFailure:Bash"},
		{"posttoolbatch-exit2", "PostToolBatch", "", exit2, bash, []string{"Bash"}, "hook_blocked", "PostToolBatch"},
		{"pretooluse-exit2", "PreToolUse", "Bash", exit2, bash, []string{"Bash"}, "denied", ""},
		{"pretooluse-deny", "PreToolUse", "Bash", deny, bash, []string{"Bash"}, "denied", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: c.turns}})
			dir := e.Project(c.name)
			reason := "BLOCK-REASON-" + c.name
			once := filepath.Join(e.Root, "blocked-once")
			// Blocks once: the session goes on and ends.
			hook := e.WriteFile("hook.sh", "#!/bin/sh\ncat >/dev/null\nif [ -e "+once+" ]; then exit 0; fi\ntouch "+once+"\n"+c.hook(reason)+"\n", 0o755)
			h := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hook}}}
			if c.matcher != "" {
				h["matcher"] = c.matcher
			}
			res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "go", AllowedTools: c.tools,
				Settings: map[string]any{"hooks": map[string]any{c.event: []any{h}}}})
			if res.ExitCode != 0 {
				t.Fatalf("claude exit %d: %s", res.ExitCode, res.Stderr)
			}
			paths := e.Transcripts()
			if len(paths) != 1 {
				t.Fatalf("transcripts: %v", paths)
			}
			all := ccExtract(t, "failures", "--subagents", paths[0])
			if recs, err := claudetest.ReadJSONL(paths[0]); err == nil { // what this event wrote, for -v
				for _, r := range recs {
					if a, _ := r["attachment"].(map[string]any); a != nil && strings.HasPrefix(a["type"].(string), "hook_") {
						t.Logf("%s attachment: %v", c.name, a["type"])
					}
				}
			}
			var facts []map[string]any // the block's; a failed tool's own tool_error is another failure
			for _, f := range all {
				if f["kind"] != "tool_error" {
					facts = append(facts, f)
				}
			}
			if len(facts) != 1 || facts[0]["kind"] != c.kind || !strings.Contains(facts[0]["message"].(string), reason) {
				t.Fatalf("failures: %v, want one %s", all, c.kind)
			}
			if got, _ := facts[0]["hook"].(string); c.hookName != "" && got != c.hookName {
				t.Errorf("hook %q, want %q", got, c.hookName)
			}
			if c.kind == "denied" && facts[0]["denied_by"] != "hook" {
				t.Errorf("denied_by %v, want hook", facts[0]["denied_by"])
			}
			for _, format := range []string{"md", "html"} {
				var out, errb bytes.Buffer
				if code := ccrender.Run([]string{format, "--subagents", paths[0]}, nil, &out, &errb); code != 0 {
					t.Fatalf("cc-render: exit %d: %s", code, errb.String())
				}
				if n := strings.Count(out.String(), reason); n != 1 {
					t.Errorf("cc-render %s: the reason shows %d times, want once:\n%s", format, n, out.String())
				}
			}
		})
	}
}
