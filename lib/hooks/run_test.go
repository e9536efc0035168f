package hooks

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunner(t *testing.T) {
	pre, _ := os.ReadFile(filepath.Join(fixtures, "PreToolUse.json"))
	stop, _ := os.ReadFile(filepath.Join(fixtures, "Stop.json"))
	task, _ := os.ReadFile(filepath.Join(fixtures, "TaskCompleted.json"))
	notif, _ := os.ReadFile(filepath.Join(fixtures, "Notification.json"))
	deny := func(ctx context.Context, ev Event) (*Reply, error) {
		if e, ok := ev.(*PreToolUseEvent); ok {
			if sh, _ := e.Tool(); sh != nil && sh.(*ShellInput).Command == "touch ran" {
				return PreToolUseReply{Decision: Deny, Reason: "no touching"}.Build()
			}
		}
		return nil, nil
	}
	none := func(context.Context, Event) (*Reply, error) { return nil, nil }
	boom := func(context.Context, Event) (*Reply, error) { return nil, errors.New("boom") }
	panics := func(context.Context, Event) (*Reply, error) { panic("oops") }
	wrong := func(context.Context, Event) (*Reply, error) { return StopReply{Block: true, Reason: "x"}.Build() }
	taskBlock := func(context.Context, Event) (*Reply, error) { return ExitBlockReply(TaskCompleted, "tests fail") }

	tests := []struct {
		name     string
		policy   Policy
		in       []byte
		handlers []Handler
		code     int
		stdout   string
		stderr   string
	}{
		{"first reply wins", "", pre, []Handler{none, deny, boom}, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no touching"}}` + "\n", ""},
		{"no opinion", "", stop, []Handler{none, deny}, 0, "", ""},
		{"exit 2 on purpose", "", task, []Handler{taskBlock}, 2, "", "tests fail\n"},
		{"pass on handler error", PolicyPass, pre, []Handler{boom}, 1, "", "guard: handler 1: boom\n"},
		{"pass on panic", "", pre, []Handler{panics}, 1, "", "guard: handler 1: panic: oops\n"},
		{"pass on bad payload", "", []byte("{nope"), []Handler{deny}, 1, "", "guard: reading the payload: not a hook payload: invalid JSON: expected a key at byte 1\n"},
		{"pass on empty payload", "", []byte(" \n"), []Handler{deny}, 1, "", "guard: no payload on stdin\n"},
		{"pass on a reply for another event", "", pre, []Handler{wrong}, 1, "", "guard: handler 1 replied for Stop to a PreToolUse payload\n"},
		{"block denies", PolicyBlock, pre, []Handler{boom}, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"guard failed, blocking (on-error block): handler 1: boom"}}` + "\n", "guard: handler 1: boom\n"},
		{"block blocks Stop", PolicyBlock, stop, []Handler{panics}, 0, `{"decision":"block","reason":"guard failed, blocking (on-error block): handler 1: panic: oops"}` + "\n", "guard: handler 1: panic: oops\n"},
		{"block exits 2 on TaskCompleted", PolicyBlock, task, []Handler{boom}, 2, "", "guard failed, blocking (on-error block): handler 1: boom\n"},
		{"block falls back to pass", PolicyBlock, notif, []Handler{boom}, 1, "", "guard: handler 1: boom\n"},
		{"block on bad payload passes", PolicyBlock, []byte("[]"), []Handler{deny}, 1, "", "guard: reading the payload: not a hook payload: not a JSON object\n"},
		{"ask asks", PolicyAsk, pre, []Handler{boom}, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"guard failed, asking (on-error ask): handler 1: boom"}}` + "\n", "guard: handler 1: boom\n"},
		{"ask on Stop passes", PolicyAsk, stop, []Handler{boom}, 1, "", "guard: handler 1: boom\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			r := Runner{Stdin: bytes.NewReader(tt.in), Stdout: &stdout, Stderr: &stderr, OnError: tt.policy, Name: "guard"}
			code := r.Run(context.Background(), tt.handlers...)
			if code != tt.code || stdout.String() != tt.stdout || stderr.String() != tt.stderr {
				t.Errorf("got %d\nstdout %q\nstderr %q\nwant %d\nstdout %q\nstderr %q", code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

func TestParsePolicy(t *testing.T) {
	for _, s := range []string{"pass", "block", "ask"} {
		if p, err := ParsePolicy(s); err != nil || string(p) != s {
			t.Errorf("ParsePolicy(%q) = %q, %v", s, p, err)
		}
	}
	if _, err := ParsePolicy("deny"); err == nil || !strings.Contains(err.Error(), "pass, block or ask") {
		t.Errorf("ParsePolicy(deny) err = %v", err)
	}
}
