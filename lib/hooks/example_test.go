package hooks_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ccpipe/ccpipe/lib/hooks"
)

// A PreToolUse hook that denies one kind of Bash command and has no
// opinion on the rest.
func ExampleRunner() {
	guard := func(ctx context.Context, ev hooks.Event) (*hooks.Reply, error) {
		pre, ok := ev.(*hooks.PreToolUseEvent)
		if !ok {
			return nil, nil
		}
		if sh, _ := pre.Tool(); sh != nil && strings.HasPrefix(sh.(*hooks.ShellInput).Command, "glab ci view") {
			return hooks.PreToolUseReply{Decision: hooks.Deny, Reason: "Use `glab-pipeline inspect` instead."}.Build()
		}
		return nil, nil // no output: the normal permission flow decides
	}
	payload := `{"session_id":"s","transcript_path":"/t","cwd":"/","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"glab ci view 42"},"tool_use_id":"toolu_1"}`
	r := hooks.Runner{Stdin: strings.NewReader(payload), Stdout: os.Stdout, Stderr: os.Stderr, Name: "guard"}
	code := r.Run(context.Background(), guard)
	fmt.Println("exit", code)
	// Output:
	// {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Use `glab-pipeline inspect` instead."}}
	// exit 0
}

// A deny without a reason is refused when it is built.
func ExamplePreToolUseReply_Build() {
	_, err := hooks.PreToolUseReply{Decision: hooks.Deny}.Build()
	fmt.Println(err)
	// Output:
	// invalid PreToolUse reply: hookSpecificOutput.permissionDecisionReason: incomplete: a deny needs a reason: without one the model sees only "Blocked by hook"
}
