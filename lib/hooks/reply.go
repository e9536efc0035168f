package hooks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Reply is what a hook answers: JSON on stdout with exit 0 (almost every
// reply), plain text on stdout (WorktreeCreate's path), or a reason on
// stderr with exit 2 (the blocks of events that read nothing else).
// Build one with a per-event constructor, Decide, SystemMessage or
// RawReply: each checks it against Claude Code's reply schema first.
type Reply struct {
	event   string     // "" = fits any event
	body    []byte     // a JSON object, printed with exit 0
	streams []Streamed // written at body's streamMarks, in order
	text    string     // plain stdout, exit 0
	exit    int
	stderr  string
}

// Event is the event the reply answers, or "" when it fits any.
func (r *Reply) Event() string { return r.event }

// JSON is the reply's JSON object, or nil for a plain-text or exit-code
// reply. A Streamed value is its mark there; Write prints the value.
func (r *Reply) JSON() []byte { return r.body }

// ExitCode is the exit code the hook must end with: 0, or 2 for a block
// of an event that reads only exit codes.
func (r *Reply) ExitCode() int { return r.exit }

// Write prints the reply and returns the exit code to end with.
func (r *Reply) Write(stdout, stderr io.Writer) (int, error) {
	var err error
	switch {
	case r.exit != 0:
		_, err = fmt.Fprintln(stderr, r.stderr)
	case r.streams != nil:
		err = r.writeStreamed(stdout)
	case r.body != nil:
		_, err = stdout.Write(append(slices.Clip(r.body), '\n'))
	case r.text != "":
		_, err = fmt.Fprintln(stdout, r.text)
	}
	return r.exit, err
}

// Streamed is a reply value too large to hold twice (cc-redact --hook's
// masked copy of a tool's output): a function that writes one JSON value,
// called when the reply is printed. The reply is built and checked with a
// mark in its place (an object {"\u0000stream":N}, which no string in
// the reply can hold: a quote inside a JSON string is escaped), and Write
// prints the reply around it. The function is trusted to write valid
// JSON; Write cannot check it without holding it.
type Streamed func(w io.Writer) error

func streamMark(n int) []byte { return fmt.Appendf(nil, `{"\u0000stream":%d}`, n) }

// writeStreamed prints a reply with streamed values, buffered.
func (r *Reply) writeStreamed(stdout io.Writer) error {
	w := bufio.NewWriterSize(stdout, 64<<10)
	rest := r.body
	for n, fn := range r.streams {
		mark := streamMark(n)
		i := bytes.Index(rest, mark)
		if i < 0 {
			return fmt.Errorf("reply: streamed value %d has no mark", n)
		}
		w.Write(rest[:i])
		if err := fn(&compactWriter{w: w}); err != nil {
			return err
		}
		rest = rest[i+len(mark):]
	}
	w.Write(rest)
	w.WriteByte('\n')
	return w.Flush()
}

// compactWriter drops the white space between a JSON value's tokens as
// it passes, so that a streamed value prints as a built one does (the
// encoder compacts a json.RawMessage).
type compactWriter struct {
	w          *bufio.Writer
	inStr, esc bool
}

func (c *compactWriter) Write(b []byte) (int, error) {
	start := 0
	for i, ch := range b {
		switch {
		case c.esc:
			c.esc = false
		case c.inStr:
			c.esc = ch == '\\'
			c.inStr = ch != '"'
		case ch == '"':
			c.inStr = true
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			c.w.Write(b[start:i])
			start = i + 1
		}
	}
	if _, err := c.w.Write(b[start:]); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Decisions, as Claude Code spells them.
const (
	Allow   = "allow"
	Deny    = "deny"
	Ask     = "ask"
	Defer   = "defer"
	Block   = "block"
	Accept  = "accept"
	Decline = "decline"
	Cancel  = "cancel"
	Retry   = "retry"
)

// Common holds the reply fields every event reads.
type Common struct {
	SystemMessage  string // shown to the user
	StopClaude     bool   // "continue": false: end the agentic loop after this hook
	StopReason     string // shown when StopClaude ends the loop
	SuppressOutput bool   // hide the hook's stdout from the transcript view
}

// object is a JSON object under construction, keys in insertion order.
type object []struct {
	k string
	v any
}

func (o *object) set(k string, v any) {
	switch x := v.(type) {
	case string:
		if x == "" {
			return
		}
	case bool:
		if !x {
			return
		}
	case nil:
		return
	case []string:
		if x == nil {
			return
		}
	case map[string]any:
		if x == nil {
			return
		}
	case object:
		if len(x) == 0 {
			return
		}
	}
	*o = append(*o, struct {
		k string
		v any
	}{k, v})
}

func (o object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeJSON(&buf, kv.k)
		buf.WriteByte(':')
		b, err := marshal(kv.v)
		if err != nil {
			return nil, err
		}
		buf.Write(b)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// ReplyError is a reply Claude Code would reject or partly ignore, caught
// at construction.
type ReplyError struct {
	Event    string
	Problems []Problem
}

func (e *ReplyError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	ev := e.Event
	if ev == "" {
		ev = "any event"
	}
	return fmt.Sprintf("invalid %s reply: %s", ev, strings.Join(parts, "; "))
}

// build assembles the JSON reply for event and checks it against the
// schema.
func build(event string, c Common, top object, specific object) (*Reply, error) {
	var streams []Streamed
	for i := range specific {
		if fn, ok := specific[i].v.(Streamed); ok {
			specific[i].v = json.RawMessage(streamMark(len(streams)))
			streams = append(streams, fn)
		}
	}
	var o object
	if c.StopClaude {
		// set drops false values; "continue": false is the one that counts.
		o = append(o, struct {
			k string
			v any
		}{"continue", false})
	}
	o.set("stopReason", c.StopReason)
	o.set("suppressOutput", c.SuppressOutput)
	o.set("systemMessage", c.SystemMessage)
	o = append(o, top...)
	if len(specific) > 0 {
		hso := object{{k: "hookEventName", v: event}}
		o.set("hookSpecificOutput", append(hso, specific...))
	}
	body, err := marshal(o)
	if err != nil {
		return nil, fmt.Errorf("encoding %s reply: %w", event, err)
	}
	if ps := Check(event, body); len(ps) > 0 {
		return nil, &ReplyError{Event: event, Problems: ps}
	}
	return &Reply{event: event, body: body, streams: streams}, nil
}

// SystemMessage is a reply for any event that shows msg to the user and
// decides nothing.
func SystemMessage(msg string) (*Reply, error) {
	if msg == "" {
		return nil, errors.New("empty system message")
	}
	return build("", Common{SystemMessage: msg}, nil, nil)
}

// CommonReply is a reply for any event with only the common fields.
func CommonReply(c Common) (*Reply, error) { return build("", c, nil, nil) }

// RawReply prints body as given, for fields this package does not model
// yet. It must be one JSON object; event may be "".
func RawReply(event string, body []byte) (*Reply, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, body); err != nil {
		return nil, fmt.Errorf("raw reply: invalid JSON: %w", err)
	}
	if buf.Len() == 0 || buf.Bytes()[0] != '{' {
		return nil, errors.New("raw reply: not a JSON object")
	}
	return &Reply{event: event, body: buf.Bytes()}, nil
}

// PreToolUseReply decides a tool call before it runs. An allow is
// stronger than it looks: it skips the user's prompt and outvotes other
// hooks' asks, so return no reply when the hook has no opinion.
type PreToolUseReply struct {
	Common
	Decision          string         // Allow, Deny, Ask, Defer, or "" for none
	Reason            string         // required with Deny; the model sees it
	UpdatedInput      map[string]any // replaces the tool input (with Allow or Ask)
	AdditionalContext string
}

// Build checks and encodes the reply.
func (r PreToolUseReply) Build() (*Reply, error) {
	var s object
	s.set("permissionDecision", r.Decision)
	s.set("permissionDecisionReason", r.Reason)
	s.set("updatedInput", r.UpdatedInput)
	s.set("additionalContext", r.AdditionalContext)
	return build(PreToolUse, r.Common, nil, s)
}

// PermissionRequestReply answers a permission dialog in the user's place.
type PermissionRequestReply struct {
	Common
	Behavior           string         // Allow or Deny
	UpdatedInput       map[string]any // with Allow
	UpdatedPermissions []any          // with Allow: permission updates, e.g. {type: "setMode", ...}
	Message            string         // with Deny, required: the tool result the model gets
	Interrupt          bool           // with Deny: stop the turn too
}

// Build checks and encodes the reply.
func (r PermissionRequestReply) Build() (*Reply, error) {
	var d object
	d.set("behavior", r.Behavior)
	d.set("updatedInput", r.UpdatedInput)
	if r.UpdatedPermissions != nil {
		d.set("updatedPermissions", r.UpdatedPermissions)
	}
	d.set("message", r.Message)
	d.set("interrupt", r.Interrupt)
	var s object
	if r.Behavior == "" {
		return nil, &ReplyError{Event: PermissionRequest, Problems: []Problem{{Path: "hookSpecificOutput.decision.behavior", Kind: Rejected, Message: "must be \"allow\" or \"deny\""}}}
	}
	s.set("decision", d)
	return build(PermissionRequest, r.Common, nil, s)
}

// StopReply answers Stop: Block keeps the session working and tells the
// model Reason; AdditionalContext is feedback that lets it continue too.
type StopReply struct {
	Common
	Block             bool
	Reason            string // required with Block
	AdditionalContext string
}

// Build checks and encodes the reply.
func (r StopReply) Build() (*Reply, error) {
	return blockReply(Stop, r.Common, r.Block, r.Reason, r.AdditionalContext)
}

// SubagentStopReply answers SubagentStop, like StopReply for the subagent.
type SubagentStopReply StopReply

// Build checks and encodes the reply.
func (r SubagentStopReply) Build() (*Reply, error) {
	return blockReply(SubagentStop, r.Common, r.Block, r.Reason, r.AdditionalContext)
}

// PostToolUseReply answers PostToolUse: Block feeds Reason to the model
// (the tool already ran); UpdatedToolOutput replaces the output the model
// and the transcript get, and must match the tool's output shape (Bash:
// the whole {stdout, stderr, ...} object). UpdatedMCPToolOutput is the
// older name for MCP tools: 2.1.328 reads it only when UpdatedToolOutput
// is absent.
type PostToolUseReply struct {
	Common
	Block                bool
	Reason               string
	AdditionalContext    string
	UpdatedToolOutput    any
	UpdatedMCPToolOutput any
	ClassifierContext    string
}

// Build checks and encodes the reply.
func (r PostToolUseReply) Build() (*Reply, error) {
	var top, s object
	if r.Block {
		top.set("decision", Block)
	}
	top.set("reason", r.Reason)
	s.set("additionalContext", r.AdditionalContext)
	s.set("updatedToolOutput", r.UpdatedToolOutput)
	s.set("updatedMCPToolOutput", r.UpdatedMCPToolOutput)
	s.set("classifierContext", r.ClassifierContext)
	return build(PostToolUse, r.Common, top, s)
}

func blockReply(event string, c Common, block bool, reason, context string) (*Reply, error) {
	var top, s object
	if block {
		top.set("decision", Block)
	}
	top.set("reason", reason)
	s.set("additionalContext", context)
	return build(event, c, top, s)
}

// UserPromptSubmitReply answers a prompt before the model sees it: Block
// erases it (Reason goes to the user), AdditionalContext reaches the model,
// SessionTitle renames the session.
type UserPromptSubmitReply struct {
	Common
	Block                  bool
	Reason                 string
	AdditionalContext      string
	SessionTitle           string
	SuppressOriginalPrompt bool // with Block: leave the prompt out of the block message
}

// Build checks and encodes the reply.
func (r UserPromptSubmitReply) Build() (*Reply, error) {
	var top, s object
	if r.Block {
		top.set("decision", Block)
	}
	top.set("reason", r.Reason)
	s.set("additionalContext", r.AdditionalContext)
	s.set("sessionTitle", r.SessionTitle)
	s.set("suppressOriginalPrompt", r.SuppressOriginalPrompt)
	return build(UserPromptSubmit, r.Common, top, s)
}

// UserPromptExpansionReply answers a slash-command or MCP-prompt expansion.
type UserPromptExpansionReply struct {
	Common
	Block                  bool
	Reason                 string
	AdditionalContext      string
	SuppressOriginalPrompt bool
}

// Build checks and encodes the reply.
func (r UserPromptExpansionReply) Build() (*Reply, error) {
	var top, s object
	if r.Block {
		top.set("decision", Block)
	}
	top.set("reason", r.Reason)
	s.set("additionalContext", r.AdditionalContext)
	s.set("suppressOriginalPrompt", r.SuppressOriginalPrompt)
	return build(UserPromptExpansion, r.Common, top, s)
}

// SessionStartReply adds context at the start of a session (it reaches
// the model as "SessionStart hook additional context: ...").
type SessionStartReply struct {
	Common
	AdditionalContext  string
	InitialUserMessage string
	SessionTitle       string
	WatchPaths         []string // paths for FileChanged to watch
	ReloadSkills       bool
}

// Build checks and encodes the reply.
func (r SessionStartReply) Build() (*Reply, error) {
	var s object
	s.set("additionalContext", r.AdditionalContext)
	s.set("initialUserMessage", r.InitialUserMessage)
	s.set("sessionTitle", r.SessionTitle)
	s.set("watchPaths", r.WatchPaths)
	s.set("reloadSkills", r.ReloadSkills)
	return build(SessionStart, r.Common, nil, s)
}

// ContextReply adds context on an event whose only own reply field is
// additionalContext: PostToolUseFailure, PostToolBatch, Notification,
// Setup, SubagentStart, PostModelSwitch (and Stop, SubagentStop,
// PreToolUse, PostToolUse, UserPromptSubmit, UserPromptExpansion,
// SessionStart, which take it too).
type ContextReply struct {
	Common
	Event             string
	AdditionalContext string
}

// Build checks and encodes the reply.
func (r ContextReply) Build() (*Reply, error) {
	var s object
	s.set("additionalContext", r.AdditionalContext)
	return build(r.Event, r.Common, nil, s)
}

// PreModelSwitchReply decides a /model switch: Allow skips the cache-miss
// confirmation, Deny cancels, Ask asks the user (headless sessions refuse).
type PreModelSwitchReply struct {
	Common
	Decision string // Allow, Deny, Ask
	Reason   string // required with Deny
}

// Build checks and encodes the reply.
func (r PreModelSwitchReply) Build() (*Reply, error) {
	var s object
	s.set("permissionDecision", r.Decision)
	s.set("permissionDecisionReason", r.Reason)
	return build(PreModelSwitch, r.Common, nil, s)
}

// PermissionDeniedReply answers an auto-mode refusal; Retry lets the
// model try the call again.
type PermissionDeniedReply struct {
	Common
	Retry bool
}

// Build checks and encodes the reply.
func (r PermissionDeniedReply) Build() (*Reply, error) {
	var s object
	s.set("retry", r.Retry)
	return build(PermissionDenied, r.Common, nil, s)
}

// ElicitationReply answers an MCP elicitation (Event Elicitation) in the
// user's place, or overrides the user's answer (Event ElicitationResult).
type ElicitationReply struct {
	Common
	Event   string         // Elicitation or ElicitationResult
	Action  string         // Accept, Decline, Cancel
	Content map[string]any // with Accept
	Reason  string         // with Decline: the text of the block
}

// Build checks and encodes the reply.
func (r ElicitationReply) Build() (*Reply, error) {
	if r.Event != Elicitation && r.Event != ElicitationResult {
		return nil, fmt.Errorf("an elicitation reply is for Elicitation or ElicitationResult, not %q", r.Event)
	}
	var top, s object
	top.set("reason", r.Reason)
	s.set("action", r.Action)
	s.set("content", r.Content)
	return build(r.Event, r.Common, top, s)
}

// WatchPathsReply sets the paths FileChanged watches, from CwdChanged or
// FileChanged.
type WatchPathsReply struct {
	Common
	Event      string // CwdChanged or FileChanged
	WatchPaths []string
}

// Build checks and encodes the reply.
func (r WatchPathsReply) Build() (*Reply, error) {
	var s object
	s.set("watchPaths", r.WatchPaths)
	return build(r.Event, r.Common, nil, s)
}

// MessageDisplayReply replaces the displayed text of a streamed delta
// (display only: the model and the transcript keep the original).
type MessageDisplayReply struct {
	Common
	DisplayContent string
}

// Build checks and encodes the reply.
func (r MessageDisplayReply) Build() (*Reply, error) {
	var s object
	s.set("displayContent", r.DisplayContent)
	return build(MessageDisplay, r.Common, nil, s)
}

// WorktreeCreateReply names the worktree a WorktreeCreate hook made; a
// command hook prints the path as plain stdout (VERIFIED).
func WorktreeCreateReply(path string) (*Reply, error) {
	if path == "" || strings.ContainsAny(path, "\n\r") {
		return nil, fmt.Errorf("invalid WorktreeCreate reply: the worktree path must be one non-empty line")
	}
	return &Reply{event: WorktreeCreate, text: path}, nil
}

// exitBlockEvents read a block only as exit 2 with the reason on stderr.
var exitBlockEvents = []string{TaskCreated, TaskCompleted, TeammateIdle, ConfigChange}

// ExitBlockReply blocks an event that reads nothing but the exit code:
// TaskCreated and TaskCompleted (the task is not created or completed;
// the model gets reason), TeammateIdle (the teammate keeps working),
// ConfigChange (the change is not applied). It exits 2.
func ExitBlockReply(event, reason string) (*Reply, error) {
	if !slices.Contains(exitBlockEvents, event) {
		return nil, fmt.Errorf("invalid %s reply: an exit-2 block is only for %s", event, strings.Join(exitBlockEvents, ", "))
	}
	if strings.TrimSpace(reason) == "" {
		return nil, fmt.Errorf("invalid %s reply: a block needs a reason", event)
	}
	return &Reply{event: event, exit: 2, stderr: reason}, nil
}
