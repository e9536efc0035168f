package hooks

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// replyCases covers every reply constructor; the golden file holds what
// each prints, and every JSON reply must pass Check for its event.
var replyCases = []struct {
	name string
	mk   func() (*Reply, error)
}{
	{"pretooluse_allow", PreToolUseReply{Decision: Allow, Reason: "read-only command"}.Build},
	{"pretooluse_deny", PreToolUseReply{Decision: Deny, Reason: "DENY-REASON-42: touch is forbidden here"}.Build},
	{"pretooluse_ask", PreToolUseReply{Decision: Ask, Reason: "this pushes to main"}.Build},
	{"pretooluse_defer", PreToolUseReply{Decision: Defer}.Build},
	{"pretooluse_allow_updated_input", PreToolUseReply{Decision: Allow, UpdatedInput: map[string]any{"command": "touch changed"}}.Build},
	{"pretooluse_context", PreToolUseReply{AdditionalContext: "the repo uses make, not npm"}.Build},
	{"pretooluse_common", PreToolUseReply{Common: Common{SystemMessage: "guard <on> & armed", StopClaude: true, StopReason: "stopped by guard", SuppressOutput: true}, Decision: Deny, Reason: "no"}.Build},
	{"permissionrequest_allow", PermissionRequestReply{Behavior: Allow, UpdatedInput: map[string]any{"command": "ls"}, UpdatedPermissions: []any{map[string]any{"type": "setMode", "mode": "acceptEdits", "destination": "session"}}}.Build},
	{"permissionrequest_deny", PermissionRequestReply{Behavior: Deny, Message: "PR-DENY-MSG", Interrupt: true}.Build},
	{"stop_block", StopReply{Block: true, Reason: "tests fail"}.Build},
	{"stop_context", StopReply{AdditionalContext: "remember the changelog"}.Build},
	{"subagentstop_block", SubagentStopReply{Block: true, Reason: "check the other dir too"}.Build},
	{"posttooluse_block", PostToolUseReply{Block: true, Reason: "the file has a secret"}.Build},
	{"posttooluse_output", PostToolUseReply{AdditionalContext: "ctx", UpdatedToolOutput: map[string]any{"stdout": "redacted", "stderr": "", "interrupted": false, "isImage": false}, ClassifierContext: "user said ok"}.Build},
	{"userpromptsubmit_block", UserPromptSubmitReply{Block: true, Reason: "no secrets in prompts", SuppressOriginalPrompt: true}.Build},
	{"userpromptsubmit_context", UserPromptSubmitReply{AdditionalContext: "today is Monday", SessionTitle: "release prep"}.Build},
	{"userpromptexpansion_block", UserPromptExpansionReply{Block: true, Reason: "command disabled"}.Build},
	{"userpromptexpansion_context", UserPromptExpansionReply{AdditionalContext: "ctx"}.Build},
	{"sessionstart_context", SessionStartReply{AdditionalContext: "This repo uses Go 1.26."}.Build},
	{"sessionstart_all", SessionStartReply{AdditionalContext: "c", InitialUserMessage: "hi", SessionTitle: "t", WatchPaths: []string{".env"}, ReloadSkills: true}.Build},
	{"posttoolusefailure_context", ContextReply{Event: PostToolUseFailure, AdditionalContext: "the test db is down"}.Build},
	{"posttoolbatch_context", ContextReply{Event: PostToolBatch, AdditionalContext: "c"}.Build},
	{"notification_context", ContextReply{Event: Notification, AdditionalContext: "c"}.Build},
	{"setup_context", ContextReply{Event: Setup, AdditionalContext: "c"}.Build},
	{"subagentstart_context", ContextReply{Event: SubagentStart, AdditionalContext: "c"}.Build},
	{"postmodelswitch_context", ContextReply{Event: PostModelSwitch, AdditionalContext: "c"}.Build},
	{"premodelswitch_allow", PreModelSwitchReply{Decision: Allow}.Build},
	{"premodelswitch_deny", PreModelSwitchReply{Decision: Deny, Reason: "stay on opus"}.Build},
	{"premodelswitch_ask", PreModelSwitchReply{Decision: Ask, Reason: "cache is warm"}.Build},
	{"permissiondenied_retry", PermissionDeniedReply{Retry: true}.Build},
	{"elicitation_accept", ElicitationReply{Event: Elicitation, Action: Accept, Content: map[string]any{"name": "HookBot"}}.Build},
	{"elicitation_decline", ElicitationReply{Event: Elicitation, Action: Decline, Reason: "not from hooks"}.Build},
	{"elicitationresult_cancel", ElicitationReply{Event: ElicitationResult, Action: Cancel}.Build},
	{"cwdchanged_watch", WatchPathsReply{Event: CwdChanged, WatchPaths: []string{"package.json"}}.Build},
	{"filechanged_watch", WatchPathsReply{Event: FileChanged, WatchPaths: []string{"a", "b"}}.Build},
	{"messagedisplay", MessageDisplayReply{DisplayContent: "[redacted]\n"}.Build},
	{"worktreecreate", func() (*Reply, error) { return WorktreeCreateReply("/tmp/wt/demo") }},
	{"taskcreated_block", func() (*Reply, error) { return ExitBlockReply(TaskCreated, "no tasks named TODO") }},
	{"taskcompleted_block", func() (*Reply, error) { return ExitBlockReply(TaskCompleted, "tests fail") }},
	{"teammateidle_block", func() (*Reply, error) { return ExitBlockReply(TeammateIdle, "keep going") }},
	{"configchange_block", func() (*Reply, error) { return ExitBlockReply(ConfigChange, "settings are managed") }},
	{"system_message", func() (*Reply, error) { return SystemMessage("hook ran") }},
	{"common_stop", func() (*Reply, error) { return CommonReply(Common{StopClaude: true, StopReason: "budget spent"}) }},
	{"raw", func() (*Reply, error) { return RawReply(PreToolUse, []byte("{\n \"futureField\": 1}")) }},
	{"decide_block_pretooluse", func() (*Reply, error) { return Decide(PreToolUse, Decision{Kind: Block, Reason: "r"}) }},
	{"decide_block_permissionrequest", func() (*Reply, error) { return Decide(PermissionRequest, Decision{Kind: Block, Reason: "r"}) }},
	{"decide_block_elicitation", func() (*Reply, error) { return Decide(Elicitation, Decision{Kind: Block, Reason: "r"}) }},
	{"decide_block_posttoolusefailure", func() (*Reply, error) { return Decide(PostToolUseFailure, Decision{Kind: Block, Reason: "r"}) }},
	{"decide_allow_permissionrequest", func() (*Reply, error) {
		return Decide(PermissionRequest, Decision{Kind: Allow, UpdatedInput: map[string]any{"x": 1}})
	}},
	{"decide_sessionstart_title", func() (*Reply, error) {
		return Decide(SessionStart, Decision{AdditionalContext: "c", SessionTitle: "t", SystemMessage: "m"})
	}},
	{"decide_retry", func() (*Reply, error) { return Decide(PermissionDenied, Decision{Kind: Retry}) }},
}

func TestReplyGolden(t *testing.T) {
	var out bytes.Buffer
	for _, c := range replyCases {
		r, err := c.mk()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var stdout, stderr bytes.Buffer
		code, err := r.Write(&stdout, &stderr)
		if err != nil {
			t.Fatal(err)
		}
		if r.JSON() != nil && c.name != "raw" {
			if ps := Check(r.Event(), r.JSON()); len(ps) > 0 {
				t.Errorf("%s: Check(%s) = %v", c.name, r.Event(), ps)
			}
			if !json.Valid(r.JSON()) || bytes.ContainsRune(r.JSON(), '\n') {
				t.Errorf("%s: not one line of JSON: %s", c.name, r.JSON())
			}
		}
		if code == 2 && (r.JSON() != nil || stdout.Len() > 0) {
			t.Errorf("%s: exit 2 with stdout", c.name)
		}
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(map[string]any{"case": c.name, "event": r.Event(), "exit": code, "stdout": stdout.String(), "stderr": stderr.String()})
	}
	golden.Check(t, "testdata/replies.golden", out.String())
}

func TestReplyErrors(t *testing.T) {
	tests := []struct {
		name string
		mk   func() (*Reply, error)
		want string
	}{
		{"deny without reason", PreToolUseReply{Decision: Deny}.Build, "a deny needs a reason"},
		{"reason without decision", PreToolUseReply{Reason: "x"}.Build, "permissionDecisionReason: ignored"},
		{"updated input with deny", PreToolUseReply{Decision: Deny, Reason: "x", UpdatedInput: map[string]any{"a": 1}}.Build, "updatedInput: ignored"},
		{"unknown decision", PreToolUseReply{Decision: "maybe", Reason: "x"}.Build, "must be one of allow, deny, ask, defer"},
		{"permission deny without message", PermissionRequestReply{Behavior: Deny}.Build, "a deny needs a message"},
		{"permission allow with message", PermissionRequestReply{Behavior: Allow, Message: "x"}.Build, "decision.message: ignored"},
		{"permission without behavior", PermissionRequestReply{}.Build, "must be \"allow\" or \"deny\""},
		{"stop block without reason", StopReply{Block: true}.Build, "a block needs a reason"},
		{"stop reason without block", StopReply{Reason: "x"}.Build, "reason: ignored"},
		{"context on SessionEnd", ContextReply{Event: SessionEnd, AdditionalContext: "x"}.Build, "SessionEnd has no hookSpecificOutput"},
		{"context on PermissionRequest", ContextReply{Event: PermissionRequest, AdditionalContext: "x"}.Build, "additionalContext: ignored: not read on PermissionRequest"},
		{"context on unknown event", ContextReply{Event: "Nope", AdditionalContext: "x"}.Build, "unknown event"},
		{"stop reason without stop", func() (*Reply, error) { return CommonReply(Common{StopReason: "x"}) }, "stopReason: ignored"},
		{"content with decline", ElicitationReply{Event: Elicitation, Action: Decline, Content: map[string]any{"a": 1}}.Build, "content: ignored"},
		{"elicitation reply on Stop", ElicitationReply{Event: Stop, Action: Accept}.Build, "for Elicitation or ElicitationResult"},
		{"watch paths on SessionEnd", WatchPathsReply{Event: SessionEnd, WatchPaths: []string{"a"}}.Build, "rejected"},
		{"premodelswitch defer", PreModelSwitchReply{Decision: Defer}.Build, "must be one of allow, deny, ask"},
		{"exit block on Stop", func() (*Reply, error) { return ExitBlockReply(Stop, "x") }, "only for TaskCreated"},
		{"exit block without reason", func() (*Reply, error) { return ExitBlockReply(TaskCompleted, " ") }, "needs a reason"},
		{"empty worktree path", func() (*Reply, error) { return WorktreeCreateReply("") }, "one non-empty line"},
		{"raw array", func() (*Reply, error) { return RawReply("", []byte("[]")) }, "not a JSON object"},
		{"raw invalid", func() (*Reply, error) { return RawReply("", []byte("{")) }, "invalid JSON"},
		{"empty system message", func() (*Reply, error) { return SystemMessage("") }, "empty system message"},
		{"block SessionStart", func() (*Reply, error) { return Decide(SessionStart, Decision{Kind: Block, Reason: "x"}) }, "not a decision SessionStart reads"},
		{"retry on PreToolUse", func() (*Reply, error) { return Decide(PreToolUse, Decision{Kind: Retry}) }, "not a decision PreToolUse reads"},
		{"exit block with context", func() (*Reply, error) {
			return Decide(TaskCompleted, Decision{Kind: Block, Reason: "x", AdditionalContext: "c"})
		}, "carries nothing else"},
		{"context on PreModelSwitch", func() (*Reply, error) {
			return Decide(PreModelSwitch, Decision{Kind: Deny, Reason: "x", AdditionalContext: "c"})
		}, "additionalContext: ignored"},
		{"title on Stop", func() (*Reply, error) { return Decide(Stop, Decision{SessionTitle: "t"}) }, "sessionTitle: ignored"},
		{"worktree via Decide", func() (*Reply, error) { return Decide(WorktreeCreate, Decision{AdditionalContext: "c"}) }, "worktree path on stdout"},
		{"unknown event via Decide", func() (*Reply, error) { return Decide("Nope", Decision{}) }, "unknown event"},
	}
	for _, tt := range tests {
		r, err := tt.mk()
		if err == nil {
			t.Errorf("%s: got reply %s, want an error", tt.name, r.JSON())
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %q does not contain %q", tt.name, err, tt.want)
		}
	}
}

func TestBlockingAndAskReplies(t *testing.T) {
	for _, e := range Events {
		r := BlockingReply(e, "hook failed")
		if CanBlock(e) != (r != nil) {
			t.Errorf("%s: CanBlock %v but BlockingReply %v", e, CanBlock(e), r)
		}
	}
	if r := BlockingReply(TaskCompleted, "x"); r == nil || r.ExitCode() != 2 {
		t.Errorf("TaskCompleted block: %+v", r)
	}
	if r := BlockingReply(PreToolUse, "x"); r == nil || !strings.Contains(string(r.JSON()), `"permissionDecision":"deny"`) {
		t.Errorf("PreToolUse block: %+v", r)
	}
	if AskReply(Stop, "x") != nil || AskReply(PreToolUse, "x") == nil {
		t.Error("AskReply")
	}
}
