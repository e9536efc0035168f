// Package backtest runs a hook rule file on the past: it rebuilds, from
// session transcripts, the payloads Claude Code sent its hooks (tool calls
// joined with their results by lib/extract, subagents included) and asks
// the rules what they would have answered. It is cc-hook backtest; it
// never writes anywhere and runs no "unless" command unless asked.
package backtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccpipe/ccpipe/lib/extract"
	"github.com/ccpipe/ccpipe/lib/hooks"
	"github.com/ccpipe/ccpipe/lib/hooks/rules"
	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// Events are the events backtest can rebuild from a transcript.
var Events = []string{hooks.PreToolUse, hooks.PostToolUse, hooks.PostToolUseFailure, hooks.UserPromptSubmit,
	hooks.Stop, hooks.SessionStart}

// Options are backtest's switches.
type Options struct {
	// RunUnless runs the rules' unless commands (with the rebuilt payload
	// on stdin); otherwise a rule with one applies as if it had failed,
	// and its record names the command in Unless.
	RunUnless bool
	// All adds a record for every payload no rule answered.
	All bool
	// Workers bounds the transcripts read at once; 0 means one per CPU.
	Workers int
	// Warn is told about skipped lines and unreadable transcripts.
	Warn func(msg string)
}

// Record is one payload a rule answered (or, with All, none did).
type Record struct {
	SessionID *string `json:"session_id"`
	AgentID   *string `json:"agent_id"`
	Event     string  `json:"event"`
	ToolUseID *string `json:"tool_use_id"`
	ToolName  *string `json:"tool_name"`
	Timestamp *string `json:"timestamp"`
	// Rule is the answering rule's name (else "line N"); null when none
	// answered.
	Rule *string `json:"rule"`
	// Decision is the rule's decision, "context" for a rule that only
	// adds context or a message, "error" when the file failed; null
	// when none answered.
	Decision *string `json:"decision"`
	Reason   *string `json:"reason"`
	// Unless is the rule's unless command when it was not run.
	Unless *string `json:"unless"`
	// Payload is the rebuilt payload (not printed: for callers of Run,
	// such as the contract test comparing it with what the CLI sent).
	Payload json.RawMessage `json:"-"`
}

// Run reads the transcripts produce adds (main transcripts; their
// subagents are read after each) and emits one Record per payload a rule
// answered, in the order of the calls and prompts in each file. The tool
// events come from one pass over the transcripts, UserPromptSubmit from a
// second and Stop and SessionStart from a third over the main transcripts
// when the rules name them, so produce may be called up to three times.
//
// A payload the rule file fails on (a condition's run-time error) gets a
// record with decision "error" and the error as its reason; errs counts
// them.
func Run(ctx context.Context, f *rules.File, opts Options, produce func(add func(path string) error) error, emit func(Record) error) (errs int, err error) {
	f.SkipUnless = !opts.RunUnless
	named := map[string]bool{}
	for _, r := range f.Rules {
		for _, e := range r.Events {
			named[e] = true
		}
	}
	b := &runner{ctx: ctx, f: f, opts: opts, emit: emit, named: named}
	defer func() { errs = b.Errors }()
	if named[hooks.PreToolUse] || named[hooks.PostToolUse] || named[hooks.PostToolUseFailure] {
		if err := b.pass("tools", produce, b.tool); err != nil {
			return 0, err
		}
	}
	if named[hooks.UserPromptSubmit] {
		if err := b.pass("prompts", produce, b.prompt); err != nil {
			return 0, err
		}
	}
	if named[hooks.Stop] || named[hooks.SessionStart] {
		var paths []string
		if err := produce(func(p string) error { paths = append(paths, p); return nil }); err != nil {
			return 0, err
		}
		if err := b.turnPass(paths); err != nil {
			return 0, err
		}
		if b.unreadable > 0 {
			return 0, fmt.Errorf("%w: %d", extract.ErrUnreadable, b.unreadable)
		}
	}
	return 0, nil
}

type runner struct {
	// Errors counts the payloads the rule file failed on.
	Errors int
	ctx    context.Context
	f      *rules.File
	opts   Options
	emit   func(Record) error
	named  map[string]bool
	buf    bytes.Buffer
	// unreadable counts the transcripts the turn pass could not read.
	unreadable int
	// agentTypes caches each subagent transcript's agent type.
	agentTypes map[string]string
}

func (b *runner) pass(kind string, produce func(add func(string) error) error, fact func(any) error) error {
	x, err := extract.New(extract.Options{Kind: kind, Subagents: true, Workers: b.opts.Workers, Warn: b.opts.Warn}, fact)
	if err != nil {
		return err
	}
	err = x.ReadTranscripts(b.ctx, produce)
	if cerr := x.Close(); err == nil {
		err = cerr
	}
	return err
}

// tool answers the payloads of one joined call: PreToolUse fires for every
// call that passed input validation; then PostToolUse for a success or
// PostToolUseFailure for an error, unless the call was refused (a hook, a
// permission rule, the user) or has no result.
func (b *runner) tool(v any) error {
	t, ok := v.(extract.Tool)
	if !ok {
		return nil
	}
	if t.Result != nil && t.IsError && strings.HasPrefix(*t.Result, "<tool_use_error>") {
		return nil // refused before the hooks: no event fires
	}
	if b.named[hooks.PreToolUse] {
		if err := b.answer(hooks.PreToolUse, &t.Base, &t, func(w *payload) {}); err != nil {
			return err
		}
	}
	if t.Result == nil || t.Denied != nil {
		return nil
	}
	if !t.IsError {
		if !b.named[hooks.PostToolUse] {
			return nil
		}
		resp := t.Response
		if len(resp) == 0 || string(resp) == "null" {
			resp = responseOf(&t)
		}
		return b.answer(hooks.PostToolUse, &t.Base, &t, func(w *payload) { w.raw("tool_response", resp) })
	}
	if !b.named[hooks.PostToolUseFailure] {
		return nil
	}
	return b.answer(hooks.PostToolUseFailure, &t.Base, &t, func(w *payload) {
		w.str("error", *t.Result)
		w.raw("is_interrupt", json.RawMessage(boolJSON(t.Interrupted)))
	})
}

// eventOf is the typed event Eval tests the rules' events and matchers
// against: built from what answer knows rather than parsed again (Eval
// gives the rules' conditions the payload itself).
func eventOf(event string, t *extract.Tool, data []byte) hooks.Event {
	tc := hooks.ToolCall{}
	if t != nil {
		tc.ToolName = t.Name
	}
	b := hooks.Base{HookEventName: event}
	switch event {
	case hooks.PreToolUse:
		return &hooks.PreToolUseEvent{Base: b, ToolCall: tc}
	case hooks.PostToolUse:
		return &hooks.PostToolUseEvent{Base: b, ToolCall: tc}
	case hooks.PostToolUseFailure:
		return &hooks.PostToolUseFailureEvent{Base: b, ToolCall: tc}
	}
	// The session events are few: parse them (SessionStart's matcher
	// reads source).
	if ev, err := hooks.Parse(data); err == nil {
		return ev
	}
	return &hooks.UnknownEvent{Base: b}
}

// responseOf stands in for a toolUseResult the transcript lacks (a
// subagent's results have none): Bash's shape around the output it shows
// (stderr is merged into it), else the result's text.
func responseOf(t *extract.Tool) json.RawMessage {
	if t.Name == "Bash" {
		return json.RawMessage(`{"stdout":` + jsonString(strings.TrimPrefix(*t.Result, "(Bash completed with no output)")) +
			`,"stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}`)
	}
	return json.RawMessage(jsonString(*t.Result))
}

// prompt answers UserPromptSubmit for a prompt a person typed or sent with
// -p (queued ones included); a subagent's task, a task notification or a
// peer message is not one.
func (b *runner) prompt(v any) error {
	p, ok := v.(extract.Prompt)
	if !ok || p.Kind != "prompt" || p.Origin != "human" || p.AgentID != nil {
		return nil
	}
	return b.answer(hooks.UserPromptSubmit, &p.Base, nil, func(w *payload) { w.str("prompt", p.Text) })
}

// answer builds the event's payload, runs the rules on it and emits the
// record.
func (b *runner) answer(event string, base *extract.Base, t *extract.Tool, fields func(*payload)) error {
	if !b.opts.All && t != nil && !b.f.Wants(event, t.Name) {
		return nil // no rule of the event matches the tool: nothing to build
	}
	w := &payload{buf: &b.buf}
	b.buf.Reset()
	b.buf.WriteByte('{')
	w.str("session_id", deref(base.SessionID))
	w.str("transcript_path", mainTranscript(base.Path, base.AgentID != nil))
	w.str("cwd", base.Cwd)
	if base.AgentID != nil {
		w.str("agent_id", *base.AgentID)
		if at := b.agentType(base.Path); at != "" {
			w.str("agent_type", at)
		}
	}
	w.str("hook_event_name", event)
	if t != nil {
		w.str("tool_name", t.Name)
		input := absPaths(t.Input, base.Cwd)
		if len(input) == 0 {
			input = json.RawMessage("{}")
		}
		w.raw("tool_input", input)
		w.str("tool_use_id", t.ToolUseID)
	}
	fields(w)
	b.buf.WriteByte('}')
	data := slices.Clone(b.buf.Bytes())
	m, err := b.f.Eval(b.ctx, eventOf(event, t, data), data)
	if err != nil {
		// The rule file fails on this payload (a condition's run-time
		// error): say so in its record and go on with the others.
		b.Errors++
		errText, decision := err.Error(), "error"
		return b.emit(Record{SessionID: base.SessionID, AgentID: base.AgentID, Event: event, Timestamp: base.Timestamp,
			ToolUseID: toolField(t, func(t *extract.Tool) *string { return &t.ToolUseID }),
			ToolName:  toolField(t, func(t *extract.Tool) *string { return &t.Name }),
			Decision:  &decision, Reason: &errText, Payload: data})
	}
	if m == nil && !b.opts.All {
		return nil
	}
	rec := Record{SessionID: base.SessionID, AgentID: base.AgentID, Event: event, Timestamp: base.Timestamp, Payload: data}
	if t != nil {
		rec.ToolUseID, rec.ToolName = &t.ToolUseID, &t.Name
		if event != hooks.PreToolUse && t.ResultTimestamp != nil {
			rec.Timestamp = t.ResultTimestamp
		}
	}
	if m != nil {
		name := m.Rule.Name
		if name == "" {
			name = strings.TrimPrefix(m.Rule.Label(), "rule at ")
		}
		rec.Rule = &name
		d := m.Rule.Decision
		if d == "" {
			d = "context" // as cc-hook test names a rule that only adds context
		}
		rec.Decision = &d
		if m.Reason != "" {
			rec.Reason = &m.Reason
		}
		if m.UnlessSkipped {
			rec.Unless = &m.Rule.Unless
		}
	}
	return b.emit(rec)
}

func toolField(t *extract.Tool, f func(*extract.Tool) *string) *string {
	if t == nil {
		return nil
	}
	return f(t)
}

// pathFields are the tool_input fields Claude Code resolves against the
// cwd before a hook sees them (the transcript keeps what the model wrote).
var pathFields = []string{"file_path", "notebook_path"}

// absPaths is the input with a relative file_path or notebook_path made
// absolute, as the payload has it; the input itself when there is none.
func absPaths(input json.RawMessage, cwd string) json.RawMessage {
	if cwd == "" || !bytes.Contains(input, []byte(`_path"`)) {
		return input
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) != nil {
		return input
	}
	changed := false
	for _, f := range pathFields {
		var p string
		if json.Unmarshal(m[f], &p) != nil || p == "" || filepath.IsAbs(p) {
			continue
		}
		m[f], changed = json.RawMessage(jsonString(filepath.Join(cwd, p))), true
	}
	if !changed {
		return input
	}
	out, err := json.Marshal(m)
	if err != nil {
		return input
	}
	return out
}

// agentType is the subagent's type from the .meta.json beside its
// transcript (read once per file); "" when unknown.
func (b *runner) agentType(path string) string {
	if !layout.IsSubagentPath(path) {
		return ""
	}
	if at, ok := b.agentTypes[path]; ok {
		return at
	}
	at := ""
	if m := transcript.MetaOf(path); m != nil {
		at = m.AgentType
	}
	if b.agentTypes == nil {
		b.agentTypes = map[string]string{}
	}
	b.agentTypes[path] = at
	return at
}

// mainTranscript is the session's main transcript: a hook inside a
// subagent gets the session's transcript_path, not the subagent's file.
func mainTranscript(path string, subagent bool) string {
	if !subagent || !layout.IsSubagentPath(path) {
		return path
	}
	return filepath.Dir(filepath.Dir(path)) + ".jsonl"
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// payload writes a payload's members in the order Claude Code sends them.
type payload struct {
	buf *bytes.Buffer
	n   int
}

func (w *payload) raw(name string, v json.RawMessage) {
	if w.n > 0 {
		w.buf.WriteByte(',')
	}
	w.n++
	w.buf.WriteString(jsonString(name))
	w.buf.WriteByte(':')
	w.buf.Write(v)
}

func (w *payload) str(name, v string) { w.raw(name, json.RawMessage(jsonString(v))) }

func jsonString(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}

func boolJSON(v bool) string {
	if v {
		return "true"
	}
	return "false"
}

// Feed runs a rule file on transcript entries handed one by one, in file
// order (cc-entries lines on stdin), instead of reading transcripts.
type Feed struct {
	b              *runner
	tools, prompts *extract.Extractor
	turns          *turns
	edges          transcript.Edges
}

// NewFeed starts a Feed; call Line for each entry, then Close.
func NewFeed(ctx context.Context, f *rules.File, opts Options, emit func(Record) error) (*Feed, error) {
	f.SkipUnless = !opts.RunUnless
	named := map[string]bool{}
	for _, r := range f.Rules {
		for _, e := range r.Events {
			named[e] = true
		}
	}
	fd := &Feed{b: &runner{ctx: ctx, f: f, opts: opts, emit: emit, named: named}}
	var err error
	if named[hooks.PreToolUse] || named[hooks.PostToolUse] || named[hooks.PostToolUseFailure] {
		if fd.tools, err = extract.New(extract.Options{Kind: "tools", Warn: opts.Warn}, fd.b.tool); err != nil {
			return nil, err
		}
	}
	if named[hooks.UserPromptSubmit] {
		if fd.prompts, err = extract.New(extract.Options{Kind: "prompts", Warn: opts.Warn}, fd.b.prompt); err != nil {
			return nil, err
		}
	}
	return fd, nil
}

// Source is where a line came from, as cc-entries --with-source says in
// its cc_source field.
type Source struct {
	Path      string `json:"path"`
	SessionID string `json:"session_id"`
	AgentID   string `json:"agent_id"`
}

// ErrNotEntry is wrapped by Line's error for a line that is not a
// transcript entry: the caller reports it and goes on.
var ErrNotEntry = errors.New("not a transcript entry")

// Line takes one transcript line; src says where it came from, as far as
// known.
func (fd *Feed) Line(line []byte, src Source) error {
	e, err := transcript.Decode(line)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotEntry, err)
	}
	o := extract.Origin{Path: src.Path, SessionID: src.SessionID, AgentID: src.AgentID}
	if o.SessionID == "" {
		o.SessionID = e.SessionID
	}
	if o.AgentID == "" {
		o.AgentID = e.AgentID
	}
	// A transcript ends where transcript.Edges says: a line without a
	// session (a file-history-snapshot) is its transcript's, not one of
	// its own (its turns started again: a second SessionStart).
	if fd.edges.Next(o.Path, o.SessionID, o.AgentID) || fd.turns == nil {
		if err := fd.endFile(); err != nil {
			return err
		}
		fd.turns = &turns{b: fd.b, path: o.Path}
	}
	// The turn's events first: a session starts, and a turn's Stop comes,
	// before the next prompt's UserPromptSubmit.
	if o.AgentID == "" && (fd.b.named[hooks.Stop] || fd.b.named[hooks.SessionStart]) {
		if err := fd.turns.entry(e); err != nil {
			return err
		}
	}
	if fd.tools != nil {
		if err := fd.tools.Entry(o, e); err != nil {
			return err
		}
	}
	if fd.prompts != nil {
		return fd.prompts.Entry(o, e)
	}
	return nil
}

func (fd *Feed) endFile() error {
	for _, x := range []*extract.Extractor{fd.tools, fd.prompts} {
		if x != nil {
			if err := x.EndFile(); err != nil {
				return err
			}
		}
	}
	if fd.turns != nil {
		return fd.turns.flush()
	}
	return nil
}

// Close answers what the last transcript left pending and returns the
// count of payloads the rule file failed on.
func (fd *Feed) Close() (errs int, err error) {
	err = fd.endFile()
	for _, x := range []*extract.Extractor{fd.tools, fd.prompts} {
		if x != nil {
			if cerr := x.Close(); err == nil {
				err = cerr
			}
		}
	}
	return fd.b.Errors, err
}
