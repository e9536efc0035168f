package backtest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ccpipe/ccpipe/lib/extract"
	"github.com/ccpipe/ccpipe/lib/hooks"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// turns rebuilds the session events of one main transcript: SessionStart
// (startup at its first record, compact after each compaction) and Stop
// at the end of every main turn: the last record of an assistant message
// that did not stop for a tool call (an API error ends in StopFailure
// instead, which backtest does not rebuild).
type turns struct {
	b    *runner
	path string
	// started: the file's first conversation record was seen.
	started bool
	// pending is the message that may end the turn, flushed when the next
	// message or prompt comes, or at the end of the file.
	pending *stopTurn
	// feedback: a Stop hook sent Claude back to work in this turn.
	feedback bool
}

type stopTurn struct {
	base   extract.Base
	msgID  string
	text   []string
	active bool
}

func (b *runner) turnPass(paths []string) error {
	for _, p := range paths {
		tt := &turns{b: b, path: p}
		_, err := transcript.ReadFile(p, transcript.Options{Types: []string{"user", "assistant", "system"}, Decode: true,
			Warn: func(line int, err error) { b.warn(fmt.Sprintf("%s:%d: %v", p, line, err)) }},
			func(l *transcript.Line) error { return tt.entry(l.Entry) })
		if err == nil {
			err = tt.flush()
		}
		if err != nil {
			if b.ctx.Err() != nil {
				return b.ctx.Err()
			}
			b.warn(fmt.Sprintf("%v: skipped", err))
			b.unreadable++
		}
	}
	return nil
}

func (b *runner) warn(msg string) {
	if b.opts.Warn != nil {
		b.opts.Warn(msg)
	}
}

func (tt *turns) entry(e *transcript.Entry) error {
	if e == nil || e.AgentID != "" || e.IsSidechain {
		return nil
	}
	base := extract.Base{SessionID: strp(e.SessionID), UUID: strp(e.UUID), Timestamp: strp(e.TimestampRaw), Cwd: e.Cwd, Path: tt.path}
	if !tt.started && (e.Type == "user" || e.Type == "assistant") {
		tt.started = true
		if err := tt.sessionStart(base, "startup"); err != nil {
			return err
		}
	}
	switch e.Type {
	case "system":
		if e.System != nil && e.System.Subtype == "compact_boundary" {
			if err := tt.flush(); err != nil {
				return err
			}
			return tt.sessionStart(base, "compact")
		}
	case "user":
		if e.Message == nil || e.User == nil {
			return nil
		}
		text := transcript.Text(e.Message.Content)
		if e.IsMeta && strings.HasPrefix(text, "Stop hook feedback") {
			// The Stop fired and a hook sent Claude back: the turn goes on,
			// and its next Stop has stop_hook_active.
			err := tt.flush()
			tt.feedback = true
			return err
		}
		if isToolResult(e) {
			return nil
		}
		if err := tt.flush(); err != nil {
			return err
		}
		if !e.IsMeta && !e.User.IsCompactSummary {
			tt.feedback = false // a new prompt, a new turn
		}
	case "assistant":
		if e.Message == nil {
			return nil
		}
		if p := tt.pending; p != nil && p.msgID != e.Message.ID {
			if err := tt.flush(); err != nil {
				return err
			}
		}
		if e.Message.StopReason == "tool_use" || e.Message.Model == "<synthetic>" || e.Message.StopReason == "" {
			tt.pending = nil
			return nil
		}
		if tt.pending == nil {
			tt.pending = &stopTurn{msgID: e.Message.ID, active: tt.feedback}
		}
		tt.pending.base = base
		for _, bl := range e.Message.Content {
			if bl.Type == transcript.BlockText {
				tt.pending.text = append(tt.pending.text, bl.Text)
			}
		}
	}
	return nil
}

func isToolResult(e *transcript.Entry) bool {
	for _, bl := range e.Message.Content {
		if bl.Type == transcript.BlockToolResult {
			return true
		}
	}
	return false
}

// flush answers the Stop of the pending message.
func (tt *turns) flush() error {
	p := tt.pending
	tt.pending = nil
	if p == nil || !tt.b.named[hooks.Stop] {
		return nil
	}
	return tt.b.answer(hooks.Stop, &p.base, nil, func(w *payload) {
		w.raw("stop_hook_active", json.RawMessage(boolJSON(p.active)))
		w.str("last_assistant_message", strings.Join(p.text, "\n"))
	})
}

func (tt *turns) sessionStart(base extract.Base, source string) error {
	if !tt.b.named[hooks.SessionStart] {
		return nil
	}
	return tt.b.answer(hooks.SessionStart, &base, nil, func(w *payload) { w.str("source", source) })
}

func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
