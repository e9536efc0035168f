package hooks

import (
	"fmt"
	"slices"
)

// Decision is an event-independent description of a reply: what rule
// files and `cc-hook reply` say. Decide turns it into the event's reply.
type Decision struct {
	// Kind is Allow, Deny, Ask, Defer, Block, Accept, Decline, Cancel,
	// Retry, or "" for a reply that only adds context or a message.
	Kind              string
	Reason            string
	AdditionalContext string
	SystemMessage     string
	SessionTitle      string         // UserPromptSubmit, SessionStart
	UpdatedInput      map[string]any // PreToolUse allow/ask, PermissionRequest allow
	WatchPaths        []string       // SessionStart, CwdChanged, FileChanged
}

// jsonBlockEvents read a JSON {"decision": "block", "reason": ...}.
var jsonBlockEvents = []string{Stop, SubagentStop, UserPromptSubmit, UserPromptExpansion, PostToolUse, PostToolUseFailure}

// Decide builds event's reply for d. A combination Claude Code rejects or
// ignores is an error: a deny without a reason, additional context on an
// event that does not read it, a block of an event that cannot be blocked.
// Block maps to the event's own blocking reply: a deny on PreToolUse,
// PermissionRequest and PreModelSwitch, a decline on Elicitation, exit 2 on
// TaskCreated, TaskCompleted, TeammateIdle and ConfigChange.
func Decide(event string, d Decision) (*Reply, error) {
	if !IsEvent(event) {
		return nil, fmt.Errorf("unknown event %q", event)
	}
	c := Common{SystemMessage: d.SystemMessage}
	kind := d.Kind
	if kind == Block {
		switch event {
		case PreToolUse, PermissionRequest, PreModelSwitch:
			kind = Deny
		case Elicitation, ElicitationResult:
			kind = Decline
		}
	}
	if slices.Contains(exitBlockEvents, event) && kind == Block {
		if d.AdditionalContext != "" || d.SystemMessage != "" || d.SessionTitle != "" || d.UpdatedInput != nil || d.WatchPaths != nil {
			return nil, fmt.Errorf("invalid %s reply: a block of %s is exit 2 with the reason on stderr and carries nothing else", event, event)
		}
		return ExitBlockReply(event, d.Reason)
	}
	if kind != "" && !kindFits(event, kind) {
		return nil, fmt.Errorf("invalid %s reply: %s is not a decision %s reads", event, kind, event)
	}
	var top, s object
	switch event {
	case PermissionRequest:
		if kind == "" {
			top.set("reason", d.Reason)
			break
		}
		var pd object
		pd.set("behavior", kind)
		pd.set("updatedInput", d.UpdatedInput)
		pd.set("message", d.Reason)
		s.set("decision", pd)
		d.UpdatedInput = nil
	case WorktreeCreate:
		return nil, fmt.Errorf("invalid WorktreeCreate reply: it is the worktree path on stdout (WorktreeCreateReply)")
	case PreToolUse, PreModelSwitch:
		s.set("permissionDecision", kind)
		s.set("permissionDecisionReason", d.Reason)
	case Elicitation, ElicitationResult:
		s.set("action", kind)
		top.set("reason", d.Reason)
	case PermissionDenied:
		s.set("retry", kind == Retry)
		top.set("reason", d.Reason)
	default:
		if kind == Block {
			top.set("decision", Block)
		}
		top.set("reason", d.Reason)
	}
	s.set("updatedInput", d.UpdatedInput)
	s.set("additionalContext", d.AdditionalContext)
	s.set("sessionTitle", d.SessionTitle)
	s.set("watchPaths", d.WatchPaths)
	return build(event, c, top, s)
}

func kindFits(event, kind string) bool {
	switch event {
	case PreToolUse:
		return slices.Contains([]string{Allow, Deny, Ask, Defer}, kind)
	case PermissionRequest:
		return kind == Allow || kind == Deny
	case PreModelSwitch:
		return slices.Contains([]string{Allow, Deny, Ask}, kind)
	case Elicitation, ElicitationResult:
		return slices.Contains([]string{Accept, Decline, Cancel}, kind)
	case PermissionDenied:
		return kind == Retry
	}
	return kind == Block && slices.Contains(jsonBlockEvents, event)
}

// CanBlock reports whether event has a blocking reply (see BlockingReply).
func CanBlock(event string) bool {
	return kindFits(event, Block) || slices.Contains(exitBlockEvents, event) ||
		event == PreToolUse || event == PermissionRequest || event == PreModelSwitch ||
		event == Elicitation || event == ElicitationResult
}

// BlockingReply is the reply that stops what event is about to do, with
// reason as the text: a deny, a block, a decline or an exit 2. It is nil
// for events that cannot be blocked.
func BlockingReply(event, reason string) *Reply {
	if !CanBlock(event) {
		return nil
	}
	r, err := Decide(event, Decision{Kind: Block, Reason: reason})
	if err != nil {
		return nil
	}
	return r
}

// AskReply sends a PreToolUse call (or a PreModelSwitch) to the user's
// permission prompt with reason; nil for other events.
func AskReply(event, reason string) *Reply {
	if event != PreToolUse && event != PreModelSwitch {
		return nil
	}
	r, err := Decide(event, Decision{Kind: Ask, Reason: reason})
	if err != nil {
		return nil
	}
	return r
}
