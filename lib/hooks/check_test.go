package hooks

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name, event, in string
		want            []string // "path kind" of each problem, in order
	}{
		{"empty is no opinion", PreToolUse, "  \n", nil},
		{"the verified deny", PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"DENY-REASON-42"}}`, nil},
		{"deny without reason", PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`, []string{"hookSpecificOutput.permissionDecisionReason incomplete"}},
		{"deny with top-level reason", PreToolUse, `{"reason":"r","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`, nil},
		{"field on the wrong event", PermissionRequest, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"},"additionalContext":"x"}}`, []string{"hookSpecificOutput.additionalContext ignored"}},
		{"event name disagrees", Stop, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`, []string{"hookSpecificOutput.hookEventName rejected"}},
		{"event without hookSpecificOutput", "", `{"hookSpecificOutput":{"hookEventName":"SessionEnd"}}`, []string{"hookSpecificOutput.hookEventName rejected"}},
		{"missing hookEventName", "", `{"hookSpecificOutput":{"additionalContext":"x"}}`, []string{"hookSpecificOutput.hookEventName rejected"}},
		{"wrong type (verified)", PostToolUse, `{"continue":"notabool"}`, []string{"continue rejected"}},
		{"bad enum", PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"maybe"}}`, []string{"hookSpecificOutput.permissionDecision rejected"}},
		{"bad decision", Stop, `{"decision":"deny","reason":"x"}`, []string{"decision rejected"}},
		{"unknown top field", Stop, `{"decison":"block"}`, []string{"decison ignored"}},
		{"block without reason", Stop, `{"decision":"block"}`, []string{"reason incomplete"}},
		{"block on SessionStart", SessionStart, `{"decision":"block","reason":"x"}`, []string{"decision ignored"}},
		{"approve off PreToolUse", Stop, `{"decision":"approve"}`, []string{"decision ignored"}},
		{"stopReason alone", Stop, `{"stopReason":"x"}`, []string{"stopReason ignored"}},
		{"stopReason with continue false", Stop, `{"continue":false,"stopReason":"x"}`, nil},
		{"reason alone", Notification, `{"reason":"x"}`, []string{"reason ignored"}},
		{"permission request without decision", PermissionRequest, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest"}}`, []string{"hookSpecificOutput.decision rejected"}},
		{"permission request bad behavior", PermissionRequest, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"ask"}}}`, []string{"hookSpecificOutput.decision.behavior rejected"}},
		{"permission deny without message", PermissionRequest, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny"}}}`, []string{"hookSpecificOutput.decision.message incomplete"}},
		{"updatedInput with deny", PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"r","updatedInput":{}}}`, []string{"hookSpecificOutput.updatedInput ignored"}},
		{"watchPaths not strings", SessionStart, `{"hookSpecificOutput":{"hookEventName":"SessionStart","watchPaths":[1]}}`, []string{"hookSpecificOutput.watchPaths rejected"}},
		{"worktree path missing", WorktreeCreate, `{"hookSpecificOutput":{"hookEventName":"WorktreeCreate"}}`, []string{"hookSpecificOutput.worktreePath rejected"}},
		{"worktree plain path", WorktreeCreate, "/tmp/wt\n", nil},
		{"plain text on PreToolUse", PreToolUse, "ok\n", []string{" ignored"}},
		{"plain text on UserPromptSubmit", UserPromptSubmit, "ctx\n", nil},
		{"invalid JSON", PreToolUse, `{"a":`, []string{" rejected"}},
		{"two values", PreToolUse, `{} {}`, []string{" rejected"}},
		{"async", PreToolUse, `{"async":true,"asyncTimeout":5}`, nil},
		{"async with more", PreToolUse, `{"async":true,"decision":"block"}`, []string{"decision ignored"}},
		{"StopFailure", StopFailure, `{"systemMessage":"x"}`, []string{" ignored"}},
		{"unknown event", "Nope", `{}`, []string{" rejected"}},
		{"event from hookEventName", "", `{"hookSpecificOutput":{"hookEventName":"Stop","permissionDecision":"allow"}}`, []string{"hookSpecificOutput.permissionDecision ignored"}},
		{"content without accept", Elicitation, `{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"cancel","content":{}}}`, []string{"hookSpecificOutput.content ignored"}},
		{"system message anywhere", SessionEnd, `{"systemMessage":"bye"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := Check(tt.event, []byte(tt.in))
			var got []string
			for _, p := range ps {
				got = append(got, p.Path+" "+p.Kind)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("Check = %v\nwant %v\n%v", got, tt.want, ps)
			}
		})
	}
}
