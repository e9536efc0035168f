package extract

import (
	"encoding/json"
	"strings"

	"github.com/ccpipe/ccpipe/lib/transcript"
)

// Prompt is a prompts fact: something sent to Claude as a user turn.
type Prompt struct {
	Base
	Text string `json:"text"`
	// Origin is human, peer, task-notification or coordinator (other
	// origin kinds of the record pass through), or agent for the task a
	// subagent was given.
	Origin string `json:"origin"`
	// Queued is set for a prompt typed while Claude worked, recorded as a
	// queued_command attachment.
	Queued bool `json:"queued"`
	// Kind is prompt; with --all also meta, command, interrupt or
	// compact_summary.
	Kind     string  `json:"kind"`
	PromptID *string `json:"prompt_id"`
}

// promptOf classifies a user record. ok is false for tool results and
// records without text.
func promptOf(o *Origin, e *transcript.Entry) (p Prompt, ok bool) {
	if e.Message == nil || e.User == nil {
		return p, false
	}
	for _, b := range e.Message.Content {
		if b.Type == transcript.BlockToolResult {
			return p, false
		}
	}
	text := transcript.Text(e.Message.Content)
	origin := originName(e.User.OriginKind, e.User.TurnOrigin)
	if e.User.OriginKind == "" && e.User.TurnOrigin == "" && (e.IsSidechain || e.AgentID != "" || o.AgentID != "") {
		// A subagent's task, written by its parent: the record says no
		// more than that it is on a side chain.
		origin = "agent"
	}
	kind := "prompt"
	switch {
	case e.User.IsCompactSummary:
		kind = "compact_summary"
	case isCommandText(text):
		kind = "command"
	case strings.HasPrefix(text, interruptPrefix):
		kind = "interrupt"
	case origin == "peer" || origin == "task-notification" || origin == "coordinator":
		// Peer messages are written as meta records; they are prompts all
		// the same.
	case e.IsMeta:
		kind = "meta"
	}
	return Prompt{Base: base(o, e), Text: text, Origin: origin, Kind: kind, PromptID: str(e.PromptID)}, true
}

// queuedCommand is a queued_command attachment: a prompt typed while
// Claude worked.
type queuedCommand struct {
	Prompt      json.RawMessage `json:"prompt"`
	CommandMode string          `json:"commandMode"`
	Origin      struct {
		Kind string `json:"kind"`
	} `json:"origin"`
}

// queuedOf reads a queued_command attachment as a prompt.
func queuedOf(o *Origin, e *transcript.Entry) (p Prompt, ok bool) {
	if e.Attachment == nil || e.Attachment.Type != "queued_command" {
		return p, false
	}
	var q queuedCommand
	if !decodeObject(e.Attachment.Raw, &q) {
		return p, false
	}
	kind := "prompt"
	if q.CommandMode != "" && q.CommandMode != "prompt" {
		kind = "command"
	}
	return Prompt{Base: base(o, e), Text: rawText(q.Prompt), Origin: originName(q.Origin.Kind, ""),
		Queued: true, Kind: kind, PromptID: str(e.PromptID)}, true
}

// rawText reads a string, or the text blocks of a block array
// (transcript.ContentText).
func rawText(raw json.RawMessage) string {
	text, _ := transcript.ContentText(raw)
	return text
}

type prompts struct {
	x      *Extractor
	pre    forkPrefix
	walker walker // wants' walk
}

func (h *prompts) entry(o *Origin, e *transcript.Entry) error {
	var p Prompt
	var ok bool
	if err := h.pre.see(h.x, o, e); err != nil {
		return err
	}
	switch e.Type {
	case "assistant":
		// (Read only to tell a fork's copied prompts: see forkPrefix.)
		_, _, err := h.pre.assistant(h.x, o, e)
		return err
	case "user":
		p, ok = promptOf(o, e)
	case "attachment":
		p, ok = queuedOf(o, e)
	}
	if !ok || (p.Kind != "prompt" && !h.x.opts.All) {
		return nil
	}
	return h.pre.fact(h.x, p)
}

func (h *prompts) endFile() error { return h.pre.endFile(h.x) }
func (h *prompts) finish() error  { return nil }

// Text is a texts fact: one assistant text (or thinking) block.
type Text struct {
	Base
	Text string `json:"text"`
	// Kind is text, or thinking with --thinking.
	Kind      string  `json:"kind"`
	MessageID *string `json:"message_id"`
	Model     *string `json:"model"`
}

type texts struct{ x *Extractor }

func (h *texts) entry(o *Origin, e *transcript.Entry) error {
	owner, copied := copiedFrom(o, e)
	copied = copied && !h.x.opts.KeepCopies
	return assistantTexts(h.x, o, e, func(t Text) error {
		if copied {
			h.x.copies.leave(owner) // the text of the session that made the call
			return nil
		}
		return h.x.emit(t)
	})
}

// assistantTexts calls fn for each non-empty text block of an assistant
// record (and thinking block with --thinking). Synthetic API error
// messages are failures, not texts.
func assistantTexts(x *Extractor, o *Origin, e *transcript.Entry, fn func(Text) error) error {
	if e.Type != "assistant" || e.Message == nil || (e.Assistant != nil && e.Assistant.IsAPIErrorMessage) {
		return nil
	}
	for _, b := range e.Message.Content {
		t := Text{Base: base(o, e), MessageID: str(e.Message.ID), Model: str(e.Message.Model)}
		switch {
		case b.Type == transcript.BlockText && b.Text != "":
			t.Text, t.Kind = b.Text, "text"
		case b.Type == transcript.BlockThinking && x.opts.Thinking && b.Thinking != "":
			t.Text, t.Kind = b.Thinking, "thinking"
		default:
			continue
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

func (h *texts) endFile() error { return nil }
func (h *texts) finish() error  { return nil }

// Turn is a conversation fact: what a person would read, in order.
type Turn struct {
	Base
	// Role is user, assistant, thinking (with --thinking) or subagent.
	Role string `json:"role"`
	Text string `json:"text"`
	// Origin is the prompt's origin (user turns only).
	Origin *string `json:"origin"`
	Queued bool    `json:"queued"`
	// SubagentID and ToolUseID name the subagent whose result this is.
	SubagentID *string `json:"subagent_id"`
	ToolUseID  *string `json:"tool_use_id"`
}

type conversation struct {
	x      *Extractor
	pre    forkPrefix
	walker walker // wants' walk
}

func (h *conversation) entry(o *Origin, e *transcript.Entry) error {
	if err := h.pre.see(h.x, o, e); err != nil {
		return err
	}
	switch e.Type {
	case "assistant":
		owner, copied, err := h.pre.assistant(h.x, o, e)
		if err != nil {
			return err
		}
		return assistantTexts(h.x, o, e, func(t Text) error {
			if copied {
				h.x.copies.leave(owner)
				return nil
			}
			role := "assistant"
			if t.Kind == "thinking" {
				role = "thinking"
			}
			return h.x.emit(Turn{Base: t.Base, Role: role, Text: t.Text})
		})
	case "attachment":
		if p, ok := queuedOf(o, e); ok && p.Kind == "prompt" {
			return h.pre.fact(h.x, Turn{Base: p.Base, Role: "user", Text: p.Text, Origin: str(p.Origin), Queued: true})
		}
	case "user":
		if p, ok := promptOf(o, e); ok {
			if p.Kind != "prompt" {
				return nil
			}
			if p.Origin == "task-notification" {
				n := parseNotification(p.Text)
				text := n.result
				if text == "" {
					text = n.summary
				}
				return h.pre.fact(h.x, Turn{Base: p.Base, Role: "subagent", Text: text, SubagentID: str(n.taskID), ToolUseID: str(n.toolUseID)})
			}
			return h.pre.fact(h.x, Turn{Base: p.Base, Role: "user", Text: p.Text, Origin: str(p.Origin)})
		}
		// A foreground subagent's report comes back as its Agent call's
		// result.
		if e.Message == nil || e.User == nil {
			return nil // a message of another type: named as a mismatch
		}
		for _, b := range e.Message.Content {
			if b.Type != transcript.BlockToolResult {
				continue
			}
			var r agentResult
			if !maybeAgentReport(e.User.ToolUseResult) || !decodeObject(e.User.ToolUseResult, &r) ||
				r.AgentID == "" || r.Status != "completed" {
				continue
			}
			return h.pre.fact(h.x, Turn{Base: base(o, e), Role: "subagent", Text: r.text(),
				SubagentID: str(r.AgentID), ToolUseID: str(b.ToolUseID)})
		}
	}
	return nil
}

// maybeAgentReport reports whether a toolUseResult may be a completed
// subagent's: it reads agentId and status alone, so that the output of
// every other tool (most of a transcript's bytes) is not decoded. It says
// false only when readObject is sure.
func maybeAgentReport(tur []byte) bool {
	var id, status string
	if !readObject(tur, []objField{{name: "agentId", str: &id}, {name: "status", str: &status}}) {
		return true
	}
	return id != "" && status == "completed"
}

func (h *conversation) endFile() error { return h.pre.endFile(h.x) }
func (h *conversation) finish() error  { return nil }

// Compaction is a compactions fact.
type Compaction struct {
	Base
	Trigger    *string `json:"trigger"`
	PreTokens  *int64  `json:"pre_tokens"`
	PostTokens *int64  `json:"post_tokens"`
	DurationMs *int64  `json:"duration_ms"`
	// Summary is the text of the summary record that follows the
	// boundary; null when the transcript ends first.
	Summary     *string `json:"summary"`
	SummaryUUID *string `json:"summary_uuid"`
}

type compactMetadata struct {
	Trigger    string `json:"trigger"`
	PreTokens  *int64 `json:"preTokens"`
	PostTokens *int64 `json:"postTokens"`
	DurationMs *int64 `json:"durationMs"`
}

type compactions struct {
	x       *Extractor
	pending *Compaction
}

func (h *compactions) entry(o *Origin, e *transcript.Entry) error {
	switch {
	case e.System != nil && e.System.Subtype == "compact_boundary":
		if err := h.endFile(); err != nil {
			return err
		}
		var m compactMetadata
		decodeObject(e.System.CompactMetadata, &m)
		h.pending = &Compaction{Base: base(o, e), Trigger: str(m.Trigger), PreTokens: m.PreTokens,
			PostTokens: m.PostTokens, DurationMs: m.DurationMs}
	case e.User != nil && e.User.IsCompactSummary && h.pending != nil && e.Message != nil:
		h.pending.Summary = new(transcript.Text(e.Message.Content))
		h.pending.SummaryUUID = str(e.UUID)
		return h.endFile()
	}
	return nil
}

func (h *compactions) endFile() error {
	if h.pending == nil {
		return nil
	}
	c := h.pending
	h.pending = nil
	return h.x.emit(c)
}

func (h *compactions) finish() error { return nil }
