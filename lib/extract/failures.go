package extract

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/ccpipe/ccpipe/lib/transcript"
)

// Failure is a failures fact: something that went wrong.
type Failure struct {
	Base
	// Kind is tool_error, denied, interrupted, hook_blocked, hook_error,
	// api_retry or api_error.
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Tool and ToolUseID name the call (tool_error, denied, interrupted).
	Tool      *string `json:"tool"`
	ToolUseID *string `json:"tool_use_id"`
	// ExitCode is a failed shell command's exit code.
	ExitCode *int `json:"exit_code"`
	// DeniedBy is hook, user, rule or mode (denied).
	DeniedBy *string `json:"denied_by"`
	// Hook is the hook's name ("PreToolUse:Bash", "Stop") for hook kinds.
	Hook *string `json:"hook"`
	// Status is the HTTP status of an API error; RetryAttempt and
	// MaxRetries count an api_retry.
	Status       *int `json:"status"`
	RetryAttempt *int `json:"retry_attempt"`
	MaxRetries   *int `json:"max_retries"`
}

// maxPendingNames bounds the tool names kept for calls awaiting a result.
const maxPendingNames = 10000

type failures struct {
	x     *Extractor
	names map[string]string // tool_use_id -> tool name, until the result
	// copied holds the ids of the calls a fork copied (copied.go), until
	// their result: those failures are the session's that made the call.
	copied map[string]string // tool_use_id -> the session that made the call
	// hookErrs counts the hook error attachments per toolUseID: a Stop
	// hook's failure is written both as an attachment and in the
	// stop_hook_summary with the same toolUseID, and is one failure.
	hookErrs map[string]int
	// stopMetas and stopAtts count the two records of a Stop or
	// SubagentStop block not yet matched, by reason (stopBlock).
	stopMetas, stopAtts map[string]int
	// The line wants last looked at, and special's answer, for toolsOnly
	// (which asks about the same line next, if wants wanted it).
	lastLine    *byte
	lastLen     int
	lastSpecial bool
	walker      walker // wants' walk
}

func newFailures(x *Extractor) *failures {
	return &failures{x: x, names: map[string]string{}, copied: map[string]string{}, hookErrs: map[string]int{}}
}

func (h *failures) entry(o *Origin, e *transcript.Entry) error {
	switch e.Type {
	case "assistant":
		return h.assistant(o, e)
	case "user":
		return h.user(o, e)
	case "system":
		return h.system(o, e)
	case "attachment":
		return h.attachment(o, e)
	}
	return nil
}

func (h *failures) assistant(o *Origin, e *transcript.Entry) error {
	if e.Message == nil {
		return nil
	}
	if e.Assistant != nil && e.Assistant.IsAPIErrorMessage {
		var extra struct {
			Status *int `json:"apiErrorStatus"`
		}
		decodeObject(e.Raw, &extra)
		return h.x.emit(Failure{Base: base(o, e), Kind: "api_error", Message: transcript.Text(e.Message.Content), Status: extra.Status})
	}
	owner, copied := copiedFrom(o, e)
	for _, b := range e.Message.Content {
		switch {
		case b.Type != transcript.BlockToolUse:
		case copied:
			if len(h.copied) < maxPendingNames {
				h.copied[b.ID] = owner
			}
		case len(h.names) < maxPendingNames:
			h.names[b.ID] = b.Name
		}
	}
	return nil
}

func (h *failures) user(o *Origin, e *transcript.Entry) error {
	if e.Message == nil || e.User == nil {
		return nil
	}
	for _, b := range e.Message.Content {
		if b.Type != transcript.BlockToolResult {
			continue
		}
		owner, copied := h.copied[b.ToolUseID]
		delete(h.copied, b.ToolUseID)
		name, known := h.names[b.ToolUseID]
		delete(h.names, b.ToolUseID)
		r := &result{text: transcript.Text(b.Content), isError: b.IsError, tur: e.User.ToolUseResult,
			denialKind: e.User.ToolDenialKind, decision: e.User.PermissionDecision}
		f := Failure{Base: base(o, e), Message: r.text, ToolUseID: str(b.ToolUseID)}
		if known {
			f.Tool = &name
		}
		switch d := r.denial(); {
		case d != nil:
			f.Kind, f.DeniedBy, f.Message = "denied", &d.By, d.Reason
		case r.interrupted():
			f.Kind = "interrupted"
		case r.isError:
			f.Kind = "tool_error"
			if n, _, ok := ExitCode(r.text); ok && (name == "Bash" || name == "PowerShell" || !known) {
				f.ExitCode = &n
			}
		default:
			continue
		}
		if copied {
			h.x.copies.leave(owner) // the failure of the session that made the call
			continue
		}
		if err := h.x.emit(f); err != nil {
			return err
		}
	}
	if p, ok := promptOf(o, e); ok {
		if msg, found := HookFeedback(p); found {
			hook := "Stop"
			if p.AgentID != nil {
				hook = "SubagentStop" // its feedback reads "Stop hook feedback" too
			}
			if h.stopBlock(&h.stopMetas, &h.stopAtts, msg) {
				return h.x.emit(Failure{Base: p.Base, Kind: "hook_blocked", Message: msg, Hook: &hook})
			}
		}
	}
	return nil
}

// HookFeedback says a prompt is what a blocking Stop or SubagentStop hook
// fed back to the model (a meta prompt "Stop hook feedback:\n<reason>"),
// and gives the reason. The block is one failure (failures kind
// hook_blocked), which a page shows in the prompt's place.
func HookFeedback(p Prompt) (reason string, ok bool) {
	if p.Kind != "meta" {
		return "", false
	}
	return strings.CutPrefix(p.Text, "Stop hook feedback:\n")
}

// stopBlock counts one Stop or SubagentStop block once. Claude Code
// 2.1.328 writes a block by exit code 2 as the feedback prompt alone, and
// one by a {"decision":"block"} reply as the feedback prompt and a
// hook_blocking_error attachment with the same reason, in either order
// (contract TestHookBlockIsOneFailure). mine counts the records of this
// side still unmatched, theirs the other side's: a record the other side
// is waiting for is the same block, and is not counted again.
func (h *failures) stopBlock(mine, theirs *map[string]int, reason string) bool {
	k := strings.TrimSpace(reason)
	if (*theirs)[k] > 0 {
		(*theirs)[k]--
		return false
	}
	if *mine == nil {
		*mine = map[string]int{}
	}
	if len(*mine) < maxPendingNames {
		(*mine)[k]++
	}
	return true
}

// apiError is a system api_error record's error object.
type apiError struct {
	Message   string `json:"message"`
	Formatted string `json:"formatted"`
	Status    *int   `json:"status"`
}

func (h *failures) system(o *Origin, e *transcript.Entry) error {
	s := e.System
	switch s.Subtype {
	case "api_error":
		var ae apiError
		decodeObject(s.Error, &ae)
		msg := ae.Formatted
		if msg == "" {
			msg = ae.Message
		}
		if msg == "" {
			msg = s.Content
		}
		return h.x.emit(Failure{Base: base(o, e), Kind: "api_retry", Message: msg, Status: ae.Status,
			RetryAttempt: &s.RetryAttempt, MaxRetries: &s.MaxRetries})
	case "informational":
		var r struct {
			PromptSubmitEnding struct {
				Ending struct {
					Kind   string `json:"kind"`
					Reason string `json:"reason"`
				} `json:"ending"`
			} `json:"promptSubmitEnding"`
		}
		decodeObject(e.Raw, &r)
		if end := r.PromptSubmitEnding.Ending; end.Kind == "blocked_by_hook" {
			msg := end.Reason
			if msg == "" {
				msg = s.Content
			}
			return h.x.emit(Failure{Base: base(o, e), Kind: "hook_blocked", Message: msg, Hook: new("UserPromptSubmit")})
		}
	case "stop_hook_summary":
		var r struct {
			HookErrors []json.RawMessage `json:"hookErrors"`
			// Failed lists the indexes of hookErrors that are failed hooks;
			// the others are blocks (exit 2), whose reason is also the
			// "Stop hook feedback" meta prompt (counted there). Without
			// the field every entry is taken as an error.
			Failed    *[]int `json:"failedHookErrorIndexes"`
			ToolUseID string `json:"toolUseID"`
		}
		decodeObject(e.Raw, &r)
		seen := h.hookErrs[r.ToolUseID] // already counted from attachments
		delete(h.hookErrs, r.ToolUseID)
		for i, he := range r.HookErrors {
			if r.Failed != nil && !slices.Contains(*r.Failed, i) {
				continue
			}
			if seen > 0 && r.ToolUseID != "" {
				seen--
				continue
			}
			msg := rawText(he)
			if msg == "" {
				msg = string(he)
			}
			if err := h.x.emit(Failure{Base: base(o, e), Kind: "hook_error", Message: msg, Hook: new("Stop")}); err != nil {
				return err
			}
		}
	}
	return nil
}

// hookAttachment holds the fields of the hook_* attachments.
type hookAttachment struct {
	HookName      string          `json:"hookName"`
	HookEvent     string          `json:"hookEvent"`
	ToolUseID     string          `json:"toolUseID"`
	Content       json.RawMessage `json:"content"`
	Stderr        string          `json:"stderr"`
	Stdout        string          `json:"stdout"`
	BlockingError struct {
		BlockingError string `json:"blockingError"`
		Command       string `json:"command"`
	} `json:"blockingError"`
	Message string `json:"message"`
}

func (h *failures) attachment(o *Origin, e *transcript.Entry) error {
	kind := ""
	switch e.Attachment.Type {
	case "hook_blocking_error", "hook_stopped_continuation":
		kind = "hook_blocked"
	case "hook_non_blocking_error", "hook_error_during_execution":
		kind = "hook_error"
	default:
		return nil
	}
	var a hookAttachment
	decodeObject(e.Attachment.Raw, &a)
	msg := a.BlockingError.BlockingError
	for _, m := range []string{a.Stderr, rawText(a.Content), a.Message, a.Stdout} {
		if msg == "" {
			msg = m
		}
	}
	hook := a.HookName
	if hook == "" {
		hook = a.HookEvent
	}
	if e.Attachment.Type == "hook_blocking_error" && (a.HookEvent == "Stop" || a.HookEvent == "SubagentStop") &&
		!h.stopBlock(&h.stopAtts, &h.stopMetas, a.BlockingError.BlockingError) {
		return nil // its feedback prompt was counted
	}
	if kind == "hook_error" && a.ToolUseID != "" && len(h.hookErrs) < maxPendingNames && (a.HookEvent == "Stop" || a.HookEvent == "SubagentStop") {
		h.hookErrs[a.ToolUseID]++
	}
	return h.x.emit(Failure{Base: base(o, e), Kind: kind, Message: msg, Hook: str(hook), ToolUseID: str(a.ToolUseID)})
}

func (h *failures) endFile() error {
	clear(h.names)
	clear(h.hookErrs)
	clear(h.stopMetas)
	clear(h.stopAtts)
	return nil
}

func (h *failures) finish() error { return nil }
