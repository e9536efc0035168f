package otel

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/extract"
	"github.com/ccpipe/ccpipe/lib/pricing"
	"github.com/ccpipe/ccpipe/lib/transcript"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// ReadOptions say how transcripts become events.
type ReadOptions struct {
	// Prices prices each API response (lib/extract's usage --cost, the
	// one billing rule); nil is the built-in table.
	Prices *pricing.Catalog
	// Prompt turns a prompt's text into what the event says; nil sends
	// Redacted, as Claude Code does without OTEL_LOG_USER_PROMPTS=1.
	Prompt func(text string) string
	// UserID is Claude Code's user.id of the session at a transcript
	// path ("" unknown); nil: none.
	UserID func(transcriptPath string) string
	// Warn is told of each skipped line, unreadable file or unpriced
	// message.
	Warn func(msg string)
	// Cache keeps each session's events (cache.go); nil: none.
	Cache *cache.Store
	// Pieces, with a Cache, has each session's events kept marshalled
	// too (pieces.go); nil: not.
	Pieces *Pieces
}

// SessionEvents are the events of one session, in transcript order, as
// the Reader hands them on, and (when they are all there) their pieces.
type SessionEvents struct {
	Events []*Event
	pieces *pieces
}

// Reader turns the transcripts of sessions into events, in transcript
// order: a session's main transcript, then its subagents'. Each session
// is read with extractors of its own into a record of its events (which
// the cache keeps, cache.go), then sent: what spans sessions (a message
// counted once, the fork notes) is applied as the records are sent, so a
// session's record is the same whatever else the run reads.
type Reader struct {
	opts                  ReadOptions
	emit                  func(*SessionEvents) error
	usage, prompts, tools *extract.Extractor
	types                 []string
	f                     fileState
	// session is the session whose entries are being read (Entry);
	// rec is the record being read, nil between sessions.
	session string
	rec     *record
	edges   transcript.Edges
	// counted holds the key of each API message sent in this run: one
	// a resumed session copied is sent once (the billing rule), under the
	// session read first.
	counted map[uint64]struct{}
	// copied holds the API messages read only as a fork's copies, by
	// owner: Close names those never counted. left counts the prompts and
	// tool calls left out, by kind (forkKinds[1:]) and owner; read holds
	// the sessions read: Close names the owners not read.
	copied map[uint64]string
	left   [len(forkKinds) - 1]map[string]int
	read   map[string]struct{}
}

// forkKinds are the extractors' kinds, in the order Close notes them.
var forkKinds = [...]string{"usage", "prompts", "tools"}

// fileState is what the events of one transcript need from records
// other than the one a fact comes from.
type fileState struct {
	path, mainSession, version, promptID string
	agent, open                          bool
	started                              bool
	// assistant records by uuid, tool calls by tool_use_id, api-request
	// records by id: read as they come, dropped when used or at the
	// file's end.
	assist map[string]assistInfo
	calls  map[string]assistInfo
	refs   map[string]request
}

type assistInfo struct{ promptID, requestID, requestRef string }

// request is what an api-request record says of a request.
type request struct {
	querySource, effort string
	// fast: the request asked for fast mode (params.speed). Claude Code's
	// speed attribute says what was asked, not the response's
	// usage.speed: a response billed fast to a request that did not ask
	// reads normal (observed with 2.1.328).
	fast bool
}

// NewReader returns a Reader that hands each session's events to emit.
func NewReader(opts ReadOptions, emit func(*SessionEvents) error) (*Reader, error) {
	if opts.Prices == nil {
		opts.Prices = pricing.Embedded()
	}
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	r := &Reader{opts: opts, emit: emit, counted: map[uint64]struct{}{}, copied: map[uint64]string{}, read: map[string]struct{}{}}
	for i := range r.left {
		r.left[i] = map[string]int{}
	}
	if err := r.extractors(); err != nil {
		return nil, err
	}
	r.types = []string{"user", "assistant", "attachment", "api-request"}
	return r, nil
}

// extractors starts the extractors of a session.
func (r *Reader) extractors() error {
	var err error
	if r.usage, err = extract.New(extract.Options{Kind: "usage", Prices: r.opts.Prices, Warn: r.warn}, r.onUsage); err != nil {
		return err
	}
	if r.prompts, err = extract.New(extract.Options{Kind: "prompts", Warn: r.warn}, r.onPrompt); err != nil {
		return err
	}
	r.tools, err = extract.New(extract.Options{Kind: "tools", Warn: r.warn}, r.onTool)
	return err
}

// warn says msg now, or with the events of the session being read.
func (r *Reader) warn(msg string) {
	if r.rec != nil {
		r.rec.warns = append(r.rec.warns, msg)
		return
	}
	r.opts.Warn(msg)
}

// userID is Claude Code's user.id of the transcript at path ("" unknown).
func (r *Reader) userID(path string) string {
	if r.opts.UserID == nil || path == "" {
		return ""
	}
	return r.opts.UserID(path)
}

// Session reads the session whose main transcript is at path, then its
// subagents' transcripts, or takes its record from the cache when none of
// its files changed. An unreadable main transcript is an error (the
// events read before it are sent); an unreadable subagent transcript is
// warned about and skipped.
func (r *Reader) Session(ctx context.Context, path string) error {
	if err := r.endSession(); err != nil {
		return err
	}
	uid := r.userID(path)
	if rec, snap, ok := r.cached(path); ok {
		r.withPieces(path, &snap, rec, uid, true)
		return r.send(rec, uid)
	}
	snap := r.snapshot(path)
	rec, err := r.readSession(ctx, path, &snap)
	if err == nil && snap.cacheable {
		r.withPieces(path, &snap, rec, uid, false)
		r.store(path, &snap, rec)
	}
	if serr := r.send(rec, uid); err == nil {
		err = serr
	}
	return err
}

// readSession reads a session's transcripts into a record; snap gets the
// stamp of each subagent transcript before it is read.
func (r *Reader) readSession(ctx context.Context, path string, snap *snapshot) (*record, error) {
	sid := transcript.SessionID(path)
	if err := r.begin(sid); err != nil {
		return r.finish(), err
	}
	if err := r.file(ctx, path, extract.Origin{Path: path, SessionID: sid}, false); err != nil {
		return r.finish(), err
	}
	subs, err := transcript.Subagents(path)
	if err != nil {
		r.warn(fmt.Sprintf("%s: subagents: %v, skipped", path, err))
		snap.cacheable = false
	}
	for _, sa := range subs {
		snap.sub(sa.Path)
		if err := r.file(ctx, sa.Path, extract.Origin{Path: sa.Path, SessionID: sid, AgentID: sa.AgentID}, true); err != nil {
			if ctx.Err() != nil {
				return r.finish(), ctx.Err()
			}
			r.warn(fmt.Sprintf("%v: skipped", err))
			snap.cacheable = false
		}
	}
	return r.finish(), nil
}

// begin starts the record of session sid, with extractors of its own.
func (r *Reader) begin(sid string) error {
	r.session = sid
	r.rec = &record{}
	r.saw(sid)
	return r.extractors()
}

// finish ends the record being read: the transcript being read is ended,
// and what the extractors left to a fork's owner is counted.
func (r *Reader) finish() *record {
	rec := r.rec
	err := r.endFile()
	if err != nil {
		rec.warns = append(rec.warns, err.Error())
	}
	rec.copied = r.usage.CopiedMessages()
	for i, x := range []*extract.Extractor{r.prompts, r.tools} {
		rec.left[i] = x.LeftCopies()
	}
	r.rec = nil
	return rec
}

// saw notes that the record being read holds session sid.
func (r *Reader) saw(sid string) {
	if sid == "" || (len(r.rec.seen) > 0 && r.rec.seen[len(r.rec.seen)-1] == sid) {
		return
	}
	if !slices.Contains(r.rec.seen, sid) {
		r.rec.seen = append(r.rec.seen, sid)
	}
}

// send hands a session's events on: a message sent already in this run
// is left out, the rest numbered (event.sequence) in transcript order;
// the record's pieces go with them when none was left out and they were
// built for uid.
func (r *Reader) send(rec *record, uid string) error {
	for _, w := range rec.warns {
		r.opts.Warn(w)
	}
	for k, owner := range rec.copied {
		r.copied[k] = owner
	}
	for i, m := range rec.left {
		for owner, n := range m {
			r.left[i][owner] += n
		}
	}
	for _, sid := range rec.seen {
		r.read[sid] = struct{}{}
	}
	evs := make([]*Event, 0, len(rec.events))
	for i := range rec.events {
		ev := &rec.events[i]
		if ev.Name == EventAPIRequest {
			if _, dup := r.counted[ev.msgKey]; dup {
				continue
			}
			r.counted[ev.msgKey] = struct{}{}
		}
		ev.Seq, ev.UserID = int64(len(evs)), uid
		evs = append(evs, ev)
	}
	if len(evs) == 0 {
		return nil
	}
	se := &SessionEvents{Events: evs}
	if len(evs) == len(rec.events) && rec.pieces.usable(r.opts.Pieces, uid) {
		se.pieces = rec.pieces
	}
	return r.emit(se)
}

// endSession sends the session whose entries were being read.
func (r *Reader) endSession() error {
	if r.rec == nil {
		return nil
	}
	uid := r.userID(r.f.path)
	return r.send(r.finish(), uid)
}

// Close sends what is still read and says which fork copies were left out
// to sessions the run did not read.
func (r *Reader) Close() error {
	err := r.endSession()
	var notes [len(forkKinds)]map[string]int
	for k, owner := range r.copied {
		if _, ok := r.counted[k]; !ok {
			if notes[0] == nil {
				notes[0] = map[string]int{}
			}
			notes[0][owner]++
		}
	}
	for i, m := range r.left {
		for owner, n := range m {
			if _, ok := r.read[owner]; !ok {
				if notes[i+1] == nil {
					notes[i+1] = map[string]int{}
				}
				notes[i+1][owner] += n
			}
		}
	}
	for i, kind := range forkKinds {
		if len(notes[i]) > 0 {
			r.opts.Warn(extract.ForkNote(kind, notes[i]))
		}
	}
	return err
}

func (r *Reader) file(ctx context.Context, path string, o extract.Origin, agent bool) error {
	r.beginFile(o, agent)
	_, err := transcript.ReadFile(path, transcript.Options{Types: r.types, Decode: true,
		Warn: func(line int, err error) { r.warn(fmt.Sprintf("%s:%d: %v, skipped", path, line, err)) }},
		func(l *transcript.Line) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if l.Entry == nil {
				return nil
			}
			o.Line = l.Number
			return r.entry(o, l.Entry)
		})
	return errors.Join(err, r.endFile())
}

// beginFile starts reading one transcript.
func (r *Reader) beginFile(o extract.Origin, agent bool) {
	r.f = fileState{path: o.Path, mainSession: o.SessionID, agent: agent, open: true,
		assist: map[string]assistInfo{}, calls: map[string]assistInfo{}, refs: map[string]request{}}
}

// endFile flushes what cannot span transcripts.
func (r *Reader) endFile() error {
	if !r.f.open {
		return nil
	}
	r.f.open = false
	var err error
	for _, x := range []*extract.Extractor{r.usage, r.prompts, r.tools} {
		err = errors.Join(err, x.EndFile())
	}
	return err
}

// Entry reads one transcript entry piped in (cc-entries output): o says
// where it came from (its cc_source; without one, the zero Origin). A
// transcript ends where transcript.Edges says; a new session also sends
// the one before.
func (r *Reader) Entry(o extract.Origin, e *transcript.Entry) error {
	if o.SessionID == "" {
		o.SessionID = e.SessionID
	}
	edge := r.edges.Next(o.Path, o.SessionID, cmp.Or(o.AgentID, e.AgentID))
	if edge || r.rec == nil || !r.f.open {
		if r.rec != nil && o.SessionID != r.session {
			if err := r.endSession(); err != nil {
				return err
			}
		}
		if r.rec == nil {
			if err := r.begin(o.SessionID); err != nil {
				return err
			}
		} else if err := r.endFile(); err != nil {
			return err
		}
		r.beginFile(o, o.AgentID != "" || e.AgentID != "")
	}
	return r.entry(o, e)
}

func (r *Reader) entry(o extract.Origin, e *transcript.Entry) error {
	r.saw(cmp.Or(e.SessionID, o.SessionID))
	if e.Version != "" {
		r.f.version = e.Version
	}
	switch e.Type {
	case "api-request":
		r.apiRequest(e.Raw)
		return nil
	case "user":
		if e.PromptID != "" {
			r.f.promptID = e.PromptID
		}
	case "assistant":
		if a := e.Assistant; a != nil {
			info := assistInfo{promptID: r.f.promptID, requestID: a.RequestID, requestRef: a.RequestRef}
			r.f.assist[e.UUID] = info
			if e.Message != nil {
				for _, b := range e.Message.Content {
					if b.Type == transcript.BlockToolUse && b.ID != "" {
						r.f.calls[b.ID] = info
					}
				}
			}
		}
	}
	if !r.f.started && !r.f.agent && !e.IsSidechain && (e.Type == "user" || e.Type == "assistant") && !e.Timestamp.IsZero() {
		r.f.started = true
		sid := e.SessionID
		if sid == "" {
			sid = r.f.mainSession
		}
		if err := r.add(&Event{SessionID: sid, Time: e.Timestamp}); err != nil {
			return err
		}
	}
	for _, x := range []*extract.Extractor{r.usage, r.prompts, r.tools} {
		if want(x, e.Type) {
			if err := x.Entry(o, e); err != nil {
				return err
			}
		}
	}
	return nil
}

func want(x *extract.Extractor, typ string) bool {
	for _, t := range x.Types() {
		if t == typ {
			return true
		}
	}
	return false
}

// apiRequest keeps what an api-request record says of its request:
// querySource and the effort asked for.
func (r *Reader) apiRequest(raw []byte) {
	var rec struct {
		ID          string `json:"id"`
		QuerySource string `json:"querySource"`
		Params      struct {
			OutputConfig struct {
				Effort any `json:"effort"`
			} `json:"output_config"`
			Speed any `json:"speed"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &rec) != nil || rec.ID == "" {
		return
	}
	effort, _ := rec.Params.OutputConfig.Effort.(string)
	speed, _ := rec.Params.Speed.(string)
	r.f.refs[rec.ID] = request{querySource: rec.QuerySource, effort: effort, fast: speed == "fast"}
}

// add adds an event to the record being read.
func (r *Reader) add(ev *Event) error {
	if ev.Version == "" {
		ev.Version = r.f.version
	}
	r.rec.events = append(r.rec.events, *ev)
	return nil
}

func parseTS(s *string) (time.Time, bool) {
	if s == nil {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	return t, err == nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// MainQuerySource is the metric query_source of a request's querySource
// when it is the main thread's ("" when it is not known to be).
func MainQuerySource(qs string) string {
	if qs == "sdk" || strings.HasPrefix(qs, "repl_main_thread") {
		return "main"
	}
	return ""
}

func (r *Reader) onUsage(v any) error {
	u, ok := v.(extract.CostedUsage)
	if !ok {
		return nil
	}
	t, ok := parseTS(u.Timestamp)
	if !ok {
		r.warn(fmt.Sprintf("message %s: no timestamp, not exported", deref(u.UUID)))
		return nil
	}
	info := r.f.assist[deref(u.UUID)]
	delete(r.f.assist, deref(u.UUID))
	req := r.f.refs[deref(u.RequestRef)]
	a := &APIRequest{Model: deref(u.Model), Input: u.InputTokens, Output: u.OutputTokens,
		CacheRead: u.CacheReadInputTokens, CacheCreation: u.CacheCreationInputTokens,
		QuerySource: MainQuerySource(req.querySource), Effort: req.effort}
	speed := "normal"
	if req.fast {
		speed = "fast"
	}
	if pu, err := pricing.ParseUsage([]byte(u.UsageObject)); err == nil {
		a.CacheCreation5m, a.CacheCreation1h = int64(pu.Ephemeral5m), int64(pu.Ephemeral1h)
	}
	if u.CostUSD != nil {
		a.CostUSD, a.Priced = *u.CostUSD, true
	}
	bill := pricing.Record{MessageID: deref(u.MessageID), RequestID: deref(u.RequestID), RequestRef: deref(u.RequestRef), UUID: deref(u.UUID)}
	key := usage.KeyOf(&bill)
	id := deref(u.MessageID) + "\x00" + deref(u.RequestID)
	if u.MessageID == nil {
		id = "uuid\x00" + deref(u.UUID)
	}
	attrs := make([]Attr, 0, 14)
	if info.promptID != "" {
		attrs = append(attrs, S("prompt.id", info.promptID))
	}
	attrs = append(attrs, S("model", a.Model), I("input_tokens", a.Input), I("output_tokens", a.Output),
		I("cache_read_tokens", a.CacheRead), I("cache_creation_tokens", a.CacheCreation),
		I("cache_creation_5m_tokens", a.CacheCreation5m), I("cache_creation_1h_tokens", a.CacheCreation1h))
	if a.Priced {
		attrs = append(attrs, F("cost_usd", a.CostUSD), I("cost_usd_micros", int64(math.Round(a.CostUSD*1e6))))
	}
	if u.RequestID != nil {
		attrs = append(attrs, S("request_id", *u.RequestID))
	}
	attrs = append(attrs, S("speed", speed))
	if req.querySource != "" {
		attrs = append(attrs, S("query_source", req.querySource))
	}
	if req.effort != "" {
		attrs = append(attrs, S("effort", req.effort))
	}
	return r.add(&Event{Name: EventAPIRequest, SessionID: deref(u.SessionID), ID: id, Time: t, Attrs: attrs, API: a, msgKey: key})
}

// jsLength is a string's length as JavaScript counts it (UTF-16 units):
// what Claude Code's prompt_length and tool sizes say.
func jsLength(s string) int {
	n := 0
	for _, c := range s {
		if utf16.RuneLen(c) == 2 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

func (r *Reader) onPrompt(v any) error {
	p, ok := v.(extract.Prompt)
	if !ok || p.Origin != "human" || p.Kind != "prompt" || p.UUID == nil {
		return nil
	}
	t, ok := parseTS(p.Timestamp)
	if !ok {
		return nil
	}
	text := Redacted
	if r.opts.Prompt != nil {
		text = r.opts.Prompt(p.Text)
	}
	var attrs []Attr
	if p.PromptID != nil {
		attrs = append(attrs, S("prompt.id", *p.PromptID))
	}
	attrs = append(attrs, S("prompt_length", fmt.Sprint(jsLength(p.Text))), S("prompt", text), S("prompt_text", text),
		S("message.uuid", *p.UUID))
	return r.add(&Event{Name: EventUserPrompt, SessionID: deref(p.SessionID), ID: *p.UUID, Time: t, Attrs: attrs})
}

func (r *Reader) onTool(v any) error {
	tl, ok := v.(extract.Tool)
	if !ok || tl.ToolUseID == "" {
		return nil
	}
	info := r.f.calls[tl.ToolUseID]
	delete(r.f.calls, tl.ToolUseID)
	sid := deref(tl.SessionID)
	head := func() []Attr {
		var a []Attr
		if info.promptID != "" {
			a = append(a, S("prompt.id", info.promptID))
		}
		return a
	}
	tail := func(a []Attr) []Attr {
		if info.requestID != "" {
			a = append(a, S("request_id", info.requestID))
		}
		return a
	}
	if t, ok := parseTS(tl.Timestamp); ok {
		decision := "accept"
		if tl.Denied != nil {
			decision = "reject"
		}
		attrs := append(head(), S("decision", decision), S("tool_name", tl.Name), S("tool_use_id", tl.ToolUseID))
		if err := r.add(&Event{Name: EventToolDecision, SessionID: sid, ID: tl.ToolUseID, Time: t, Attrs: tail(attrs)}); err != nil {
			return err
		}
	}
	// A call denied, or without a result (the session was cut), ran no
	// tool: Claude Code sends no tool_result for it.
	t, ok := parseTS(tl.ResultTimestamp)
	if !ok || tl.Result == nil || tl.Denied != nil {
		return nil
	}
	success := "true"
	if tl.IsError || tl.Interrupted {
		success = "false"
	}
	attrs := append(head(), S("tool_name", tl.Name), S("tool_use_id", tl.ToolUseID), S("success", success),
		S("tool_input_size_bytes", fmt.Sprint(jsLength(compact(tl.Input)))))
	if success == "true" {
		attrs = append(attrs, S("tool_result_size_bytes", fmt.Sprint(jsLength(*tl.Result))))
	}
	return r.add(&Event{Name: EventToolResult, SessionID: sid, ID: tl.ToolUseID, Time: t, Attrs: tail(attrs)})
}

// compact is the input as JSON.stringify writes it. Its "size in bytes"
// is, as Claude Code counts it, the string's JavaScript length (UTF-16
// units), not its UTF-8 bytes (observed with 2.1.328).
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
