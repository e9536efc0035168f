// Package render turns Claude Code sessions into pages people read: a
// GitHub-flavoured Markdown file or one self-contained HTML page. It reads
// transcripts line by line and hands each line to the extractors of
// lib/extract, so what a page says (prompt origins, tool calls joined with
// their results, exit codes, failures, compactions) is what cc-extract
// says; this package only lays the facts out.
package render

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ccpipe/ccpipe/lib/extract"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/pricing"
	"github.com/ccpipe/ccpipe/lib/secrets"
	"github.com/ccpipe/ccpipe/lib/transcript"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// Formats are the output formats.
var Formats = []string{"md", "html"}

// Options tell how to render.
type Options struct {
	// Format is md or html.
	Format string
	// Warn is called for each skipped line or unreadable file.
	Warn func(msg string)
	// Prices prices each API response as cc-extract usage --cost does
	// (nil: the built-in table).
	Prices *pricing.Catalog
	// Done, when set, is given each session's Meta once its page is laid
	// out: its totals as the page shows them (a caller's summary, the
	// test that they are cc-extract's).
	Done func(Meta)
	// Redact, when set, replaces the secrets it finds in every string of
	// every record with [REDACTED:<kind>] before anything is laid out
	// (nil: the page shows them).
	Redact *secrets.Set
	// MaxOutputLines folds a tool output longer than this many lines: the
	// rest goes into a closed details block (0: no such fold).
	MaxOutputLines int
}

// Session is one session to render: its main transcript and the
// transcripts of its subagents.
type Session struct {
	ID   string
	Path string
	// Agents maps an Agent tool_use id, or a subagent id, to the subagent's
	// transcript, which is rendered inside that Agent call.
	Agents map[string]string
	// Title heads the page: the session's newest title, known before the
	// transcript is read (the head is written before a title set later in
	// the session is reached). Empty: the title records read before the
	// head is written, if any.
	Title string
	// Where names line n of the transcript at path (Path or one of
	// Agents) in warnings, and the file itself for n == 0; nil: the path
	// and line. cc-render's stdin spools entries to temporary files: it
	// names where each line really came from.
	Where func(path string, n int) string
}

// Name is how the transcript at path (Path or one of Agents) is called
// in messages (Session.Where).
func (s *Session) Name(path string) string { return s.where(path, 0) }

// where names line n of path in messages (Session.Where).
func (s *Session) where(path string, n int) string {
	if s.Where != nil {
		return s.Where(path, n)
	}
	if n == 0 {
		return path
	}
	return fmt.Sprintf("%s:%d", path, n)
}

// AgentsOf lists the subagent transcripts next to a main transcript, by
// the tool_use id of the Agent call that started each (from its
// meta.json) and by agent id.
func AgentsOf(path string) (map[string]string, error) {
	subs, err := transcript.Subagents(path)
	m := map[string]string{}
	for _, s := range subs {
		m[s.AgentID] = s.Path
		if s.Meta != nil && s.Meta.ToolUseID != "" {
			m[s.Meta.ToolUseID] = s.Path
		}
	}
	return m, err
}

// Doc writes one document holding one or more sessions.
type Doc struct {
	w      *bufio.Writer
	s      sink
	opts   Options
	n      int // sessions begun
	closed bool
	masked []byte // the last line with its secrets masked (Options.Redact)
}

// NewDoc returns a document writing to w. Call Session for each session,
// then Close.
func NewDoc(w io.Writer, opts Options) (*Doc, error) {
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	if opts.Prices == nil {
		opts.Prices = pricing.Embedded()
	}
	d := &Doc{w: bufio.NewWriterSize(w, 64<<10), opts: opts}
	switch opts.Format {
	case "md":
		d.s = &mdSink{w: d.w, maxLines: opts.MaxOutputLines}
	case "html":
		d.s = &htmlSink{w: d.w, maxLines: opts.MaxOutputLines}
	default:
		return nil, fmt.Errorf("unknown format %q (want md or html)", opts.Format)
	}
	return d, nil
}

// Close ends the document and flushes it.
func (d *Doc) Close() error {
	if d.closed {
		return nil
	}
	d.closed = true
	d.s.end(d.n)
	return d.w.Flush()
}

// Meta is what a page says about a session as a whole.
type Meta struct {
	N          int // 1-based index of the session in the document
	SessionID  string
	Title      string
	Cwd        string
	GitBranch  string
	Version    string
	Start, End string // RFC 3339 timestamps of the first and last records
	Prompts    int
	Tools      int
	Failures   int
	Tokens     Tokens
	// TOC lists the prompts (maxTOC at most).
	TOC       []TOCEntry
	TOCMore   int
	Truncated bool // the transcript could not be read to its end

	// counted counts each response once (lib/pricing's billing rule);
	// parts are their charges, added up at the end as
	// pricing.SessionTotal does, so that the page's cost is cc-extract's.
	counted usage.Counter
	parts   []pricing.Timed
}

// TOCEntry is one prompt in the table of contents.
type TOCEntry struct {
	Anchor, Text, Time string
}

// Tokens sums API usage and its cost.
type Tokens struct {
	Messages                                int
	Input, Output, CacheRead, CacheCreation int64
	// USD is the cost of the priced messages; Unpriced counts those whose
	// usage could not be priced; Assumed lists the unknown models priced
	// as the default model.
	USD      float64
	Unpriced int
	Assumed  []string
}

// priced is one API response's usage and its charge; ts is its first
// record's timestamp.
type priced struct {
	u      usage.Tokens
	ts     string
	ch     pricing.Charge
	costOK bool
}

func (t *Tokens) add(p *priced) {
	u := &p.u
	t.Messages++
	t.Input += u.InputTokens
	t.Output += u.OutputTokens
	t.CacheRead += u.CacheReadInputTokens
	t.CacheCreation += u.CacheCreationInputTokens
	if !p.costOK {
		t.Unpriced++
		return
	}
	for _, part := range p.ch.Parts {
		t.USD += part.USD
		if part.Basis == pricing.BasisAssumed && !slices.Contains(t.Assumed, part.Model) {
			t.Assumed = append(t.Assumed, part.Model)
		}
	}
}

func (t *Tokens) plus(o Tokens) {
	t.Messages += o.Messages
	t.Input += o.Input
	t.Output += o.Output
	t.CacheRead += o.CacheRead
	t.CacheCreation += o.CacheCreation
	t.USD += o.USD
	t.Unpriced += o.Unpriced
	for _, m := range o.Assumed {
		if !slices.Contains(t.Assumed, m) {
			t.Assumed = append(t.Assumed, m)
		}
	}
}

// maxTOC bounds the table of contents; maxDepth the nesting of subagents
// (a subagent transcript naming its parent must not loop).
const (
	maxTOC   = 5000
	maxDepth = 8
)

// Session renders one session into the document.
func (d *Doc) Session(ctx context.Context, s Session) error {
	if s.Path == "" {
		return fmt.Errorf("session %s: no transcript (only subagent entries?)", s.ID)
	}
	d.n++
	m := &Meta{N: d.n, SessionID: s.ID, Title: s.Title}
	if m.SessionID == "" {
		m.SessionID = transcript.SessionID(s.Path)
	}
	r := &fileRun{d: d, sess: &s, meta: m, ctx: ctx, spill: newSpiller()}
	defer r.spill.remove()
	err := r.file(s.Path, "", 0)
	if !r.begun {
		r.begin()
	}
	if len(m.parts) > 0 {
		m.Tokens.USD = pricing.SessionTotal(m.parts)
	}
	d.s.foot(m)
	if d.opts.Done != nil {
		d.opts.Done(*m)
	}
	if err != nil {
		return err
	}
	return d.w.Flush()
}

// fileRun renders one transcript; a nested one renders a subagent's.
type fileRun struct {
	d     *Doc
	sess  *Session
	meta  *Meta
	ctx   context.Context
	begun bool
	depth int
	// seen guards against rendering one transcript inside itself.
	seen []string
	// spill holds the session's large images on disk.
	spill *spiller

	xs    []*extract.Extractor
	batch []any
	// merge folds the records of one response; turn holds the
	// responses of this turn, counted and priced.
	merge  usage.Merger
	turn   []priced
	images map[string][]Image // tool_use id -> images of its result
}

// begin writes the session's head, once its first fact is ready.
func (r *fileRun) begin() {
	r.begun = true
	r.d.s.head(r.meta)
}

var readTypes = []string{"user", "assistant", "system", "attachment", "custom-title", "ai-title"}

// file renders the transcript at path; agentID is set for a subagent's.
func (r *fileRun) file(path, agentID string, depth int) error {
	if slices.Contains(r.seen, path) || depth > maxDepth {
		return nil
	}
	sub := &fileRun{d: r.d, sess: r.sess, meta: r.meta, ctx: r.ctx, begun: true, depth: depth, spill: r.spill,
		seen: append(slices.Clip(r.seen), path), images: map[string][]Image{}}
	if depth == 0 {
		sub = r
		r.seen = []string{path}
		r.turn, r.images = nil, map[string][]Image{}
	}
	sub.merge = usage.Merger{Out: sub.response}
	emit := func(v any) error { sub.batch = append(sub.batch, v); return nil }
	for _, o := range []extract.Options{
		{Kind: "prompts", All: true, KeepCopies: true}, {Kind: "texts", Thinking: true, KeepCopies: true}, {Kind: "tools"}, {Kind: "shell"},
		{Kind: "failures"}, {Kind: "compactions"}, {Kind: "subagents"},
	} {
		x, err := extract.New(o, emit)
		if err != nil {
			return err
		}
		sub.xs = append(sub.xs, x)
	}
	origin := extract.Origin{Path: path, SessionID: r.meta.SessionID, AgentID: agentID}
	err := sub.read(path, origin)
	if _, stop := ndjson.Stopped(err); stop || errors.Is(err, context.Canceled) {
		return err
	}
	if err != nil {
		if depth == 0 {
			r.meta.Truncated = true // the error is Session's: the caller says it, once
		} else {
			r.d.opts.Warn(err.Error())
		}
	}
	// Calls still without a result come out now, with none.
	for _, x := range sub.xs {
		if cerr := x.Close(); cerr != nil {
			return cerr
		}
	}
	if perr := sub.flush(nil); perr != nil {
		return perr
	}
	sub.endTurn()
	if depth == 0 {
		return err
	}
	return nil
}

// maxFileWarnings is how many lines of one file a page's warnings name
// (cc-extract's number); the rest are counted.
const maxFileWarnings = 10

// read feeds each wanted line of a transcript to entry. Lines are read
// with long strings cut (see MaxString); bad lines are reported and
// skipped.
func (r *fileRun) read(path string, origin extract.Origin) error {
	f, err := transcript.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	lr := newLineReader(f)
	lr.spill = r.spill
	warned := 0
	warn := func(n int, msg string) {
		if warned++; warned <= maxFileWarnings {
			r.d.opts.Warn(r.sess.where(path, n) + ": " + msg)
		}
	}
	defer func() {
		if warned > maxFileWarnings {
			r.d.opts.Warn(fmt.Sprintf("%s: %d more warnings not shown (%d in all)", r.sess.where(path, 0), warned-maxFileWarnings, warned))
		}
	}()
	var h transcript.Header
	for {
		line, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", r.sess.where(path, 0), err)
		}
		if lr.n%256 == 0 && r.ctx.Err() != nil {
			return r.ctx.Err()
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if lr.over > 0 {
			warn(lr.n, fmt.Sprintf("line over %s once its texts are cut (%s more): skipped", size(maxHeld), size(int(lr.over))))
			continue
		}
		line = r.d.mask(line)
		if err := transcript.Scan(line, &h); err != nil {
			if lr.partial {
				warn(lr.n, "incomplete last line (the transcript is being written?), skipped")
			} else {
				warn(lr.n, "malformed line skipped: "+err.Error())
			}
			continue
		}
		if !slices.Contains(readTypes, string(h.Type)) {
			continue
		}
		if lr.cut > 0 {
			warn(lr.n, fmt.Sprintf("%d texts over %s cut short on the page", lr.cut, size(MaxString)))
		}
		e, err := transcript.Decode(line)
		if err != nil {
			warn(lr.n, "malformed line skipped: "+err.Error())
			continue
		}
		origin.Line = lr.n
		if err := r.entry(origin, e); err != nil {
			return ndjson.Stop(err) // a write: it ends the render, not one file
		}
	}
}

// mask returns line with its secrets masked (Options.Redact). The line
// holds at most MaxString of one text (the reader cut the rest), so a
// secret is masked wherever the page could show it. A line without a
// keyword of any rule costs one scan and comes back as is.
func (d *Doc) mask(line []byte) []byte {
	set := d.opts.Redact
	if set == nil {
		return line
	}
	if found, err := set.ScanJSON(line); err == nil && len(found) == 0 {
		return line
	}
	// A line that does not parse gets its raw text masked: it is skipped
	// as malformed next, and its error quotes no text.
	d.masked, _, _ = set.RedactJSON(d.masked[:0], line)
	return d.masked
}

// entry feeds one entry to every extractor, then lays out what they found.
func (r *fileRun) entry(o extract.Origin, e *transcript.Entry) error {
	switch e.Type {
	case "custom-title", "ai-title":
		var t struct {
			CustomTitle string `json:"customTitle"`
			AITitle     string `json:"aiTitle"`
		}
		_ = json.Unmarshal(e.Raw, &t)
		if r.depth == 0 && r.sess.Title == "" {
			if t.CustomTitle != "" {
				r.meta.Title = t.CustomTitle
			} else if t.AITitle != "" && r.meta.Title == "" {
				r.meta.Title = t.AITitle
			}
		}
		return nil
	}
	if r.depth == 0 {
		m := r.meta
		if m.Cwd == "" {
			m.Cwd = e.Cwd
		}
		if m.GitBranch == "" {
			m.GitBranch = e.GitBranch
		}
		if m.Version == "" {
			m.Version = e.Version
		}
		if e.TimestampRaw != "" {
			if m.Start == "" {
				m.Start = e.TimestampRaw
			}
			m.End = e.TimestampRaw
		}
	}
	if e.Type == "assistant" && e.Message != nil {
		r.usage(&o, e)
	}
	if e.Type == "user" && e.Message != nil {
		r.collectImages(e)
	}
	for _, x := range r.xs {
		if !x.Wants(e.Raw) {
			continue // the byte test each kind reads by: spares decoding
		}
		if err := x.Entry(o, e); err != nil {
			return err
		}
	}
	return r.flush(e)
}

// usage counts each API response the session paid for once, as
// lib/pricing's billing rule says: billable records only, the records of
// one response merged (lib/usage's Merger), a fork's copies of the
// original's responses left to the original (the page shows them,
// without their cost).
func (r *fileRun) usage(o *extract.Origin, e *transcript.Entry) {
	m, ok := extract.UsageMessage(o, e)
	if !ok || m.Copied {
		return
	}
	m.RequestedModel, m.Usage = usage.CostFields(e.Raw)
	_ = r.merge.Add(&m) // (response never fails)
}

// response counts and prices a response once its records are merged.
func (r *fileRun) response(m *usage.Message) error {
	if !r.meta.counted.Count(m.Key, false, "") {
		return nil // counted in an earlier turn
	}
	p := priced{u: m.Tokens, ts: m.Timestamp}
	var err error
	p.ch, _, err = m.Price(r.d.opts.Prices)
	p.costOK = err == nil
	r.turn = append(r.turn, p)
	return nil
}

// endTurn writes the tokens of the turn that just ended.
func (r *fileRun) endTurn() {
	_ = r.merge.Flush()
	if len(r.turn) == 0 {
		return
	}
	var t Tokens
	for i := range r.turn {
		p := &r.turn[i]
		t.add(p)
		if p.costOK {
			for _, part := range p.ch.Parts {
				r.meta.parts = append(r.meta.parts, pricing.Timed{TS: p.ts, USD: part.USD})
			}
		}
	}
	r.meta.Tokens.plus(t)
	r.turn = r.turn[:0]
	r.ensure()
	r.d.s.turn(t, r.depth)
}

func (r *fileRun) ensure() {
	if !r.begun {
		r.begin()
	}
}

// flush lays out the facts the last entry produced.
func (r *fileRun) flush(e *transcript.Entry) error {
	batch := r.batch
	r.batch = r.batch[:0]
	for _, f := range batch {
		switch f := f.(type) {
		case extract.Prompt:
			r.prompt(f, e)
		case extract.Text:
			r.ensure()
			if f.Kind == "thinking" {
				r.d.s.thinking(f.Text)
			} else {
				r.d.s.text(f.Text)
			}
		case extract.Tool:
			if err := r.tool(f, batch, e); err != nil {
				return err
			}
		case extract.Failure:
			if f.Kind == "tool_error" || f.Kind == "denied" || f.Kind == "interrupted" {
				continue // marked on the call
			}
			r.ensure()
			if r.depth == 0 {
				r.meta.Failures++
			}
			r.d.s.marker(markerOf(f))
		case *extract.Compaction:
			r.ensure()
			r.d.s.divider(f)
		}
	}
	return nil
}

// prompt lays out a user turn. A new prompt ends the turn before it.
func (r *fileRun) prompt(p extract.Prompt, e *transcript.Entry) {
	if _, ok := extract.HookFeedback(p); ok {
		return // the block's failure marker shows it: one block, one entry
	}
	if p.Kind == "prompt" && p.Origin != "agent" {
		r.endTurn()
	}
	r.ensure()
	v := &promptView{Prompt: p}
	if e != nil && p.UUID != nil && *p.UUID == e.UUID && e.Message != nil {
		v.Images = imagesOf(e.Message.Content, r.spill)
	}
	if p.Kind == "prompt" && p.Origin != "agent" && p.Origin != "task-notification" && r.depth == 0 {
		r.meta.Prompts++
		v.N = r.meta.Prompts
		v.Anchor = fmt.Sprintf("s%d-p%d", r.meta.N, v.N)
		if len(r.meta.TOC) < maxTOC {
			r.meta.TOC = append(r.meta.TOC, TOCEntry{Anchor: v.Anchor, Text: excerpt(p.Text, 100), Time: clock(p.Timestamp)})
		} else {
			r.meta.TOCMore++
		}
	}
	r.d.s.prompt(v, r.depth)
}

// collectImages keeps the images of tool results until their call is
// laid out.
func (r *fileRun) collectImages(e *transcript.Entry) {
	for _, b := range e.Message.Content {
		if b.Type != transcript.BlockToolResult {
			continue
		}
		if imgs := imagesOf(b.Content, r.spill); len(imgs) > 0 && len(r.images) < 1000 {
			r.images[b.ToolUseID] = imgs
		}
	}
}

// tool lays out a call with its result, and a subagent's transcript inside
// the Agent call that started it.
func (r *fileRun) tool(t extract.Tool, batch []any, e *transcript.Entry) error {
	r.ensure()
	if r.depth == 0 {
		r.meta.Tools++
	}
	c := newCall(t)
	for _, f := range batch {
		switch f := f.(type) {
		case extract.Shell:
			if f.ToolUseID == t.ToolUseID {
				c.shell(f)
			}
		case extract.Failure:
			if f.ToolUseID != nil && *f.ToolUseID == t.ToolUseID && r.depth == 0 {
				r.meta.Failures++
			}
		case extract.Subagent:
			if f.ToolUseID == t.ToolUseID && f.Result != nil && *f.Result != "" {
				c.Report = f.Result
			}
		}
	}
	if c.Shell != nil && e != nil && t.ResultUUID != nil && *t.ResultUUID == e.UUID && e.User != nil {
		c.streams(e.User.ToolUseResult)
	}
	c.Images = r.images[t.ToolUseID]
	delete(r.images, t.ToolUseID)
	if t.Name == "Agent" || t.Name == "Task" {
		path := r.sess.Agents[t.ToolUseID]
		if path == "" {
			var res struct {
				AgentID string `json:"agentId"`
			}
			if e != nil && e.User != nil && json.Unmarshal(e.User.ToolUseResult, &res) == nil {
				path = r.sess.Agents[res.AgentID]
			}
		}
		if path != "" && r.depth < maxDepth {
			agentID, _ := strings.CutPrefix(transcript.SessionID(path), "agent-")
			c.Nested = func() error {
				// The subagent's tokens are its own: the parent's turn
				// is told apart.
				return r.file(path, agentID, r.depth+1)
			}
		}
	}
	return r.d.s.tool(c, r.depth)
}

// sink lays out facts in one format.
type sink interface {
	head(m *Meta)
	prompt(p *promptView, depth int)
	text(s string)
	thinking(s string)
	tool(c *call, depth int) error
	marker(m marker)
	divider(c *extract.Compaction)
	turn(t Tokens, depth int)
	foot(m *Meta)
	end(sessions int)
}

type promptView struct {
	extract.Prompt
	N      int
	Anchor string
	Images []Image
}

// Layouts of a user turn.
const (
	asPrompt    = iota // a numbered prompt, in the table of contents
	asTask             // the task a subagent was given
	asFold             // folded: Title, then Body preformatted
	asLine             // one muted line: Title
	asInterrupt        // an interruption, marked
	asNothing          // not shown (a compaction summary shows with its divider)
)

// layout says how a page shows a user turn; title and body are for asFold
// and asLine. who is the origin, "queued" and the time.
func (p *promptView) layout() (how int, title, body, who string) {
	who = p.Origin
	if p.Queued {
		who += " · queued"
	}
	if t := clock(p.Timestamp); t != "" {
		who += " · " + t
	}
	switch {
	case p.Kind == "compact_summary":
		return asNothing, "", "", who
	case p.Origin == "task-notification":
		return asFold, "Task notification · " + who, p.Text, who
	case p.Kind == "meta":
		return asFold, "Meta message · " + who, p.Text, who
	case p.Kind == "command":
		title, body, skip := commandOf(p.Text)
		switch {
		case skip:
			return asNothing, "", "", who
		case body == "":
			return asLine, title + " · " + who, "", who
		}
		return asFold, title + " · " + who, body, who
	case p.Kind == "interrupt":
		return asInterrupt, p.Text, "", who
	case p.Origin == "agent":
		return asTask, "", "", who
	}
	return asPrompt, "", "", who
}

// marker is a failure that is not a call's: an API error, a hook's
// refusal.
type marker struct {
	Kind, Title, Message, Time string
}

func markerOf(f extract.Failure) marker {
	m := marker{Kind: f.Kind, Message: f.Message, Time: clock(f.Timestamp)}
	switch f.Kind {
	case "api_retry":
		m.Title = "API error, retrying"
		if f.RetryAttempt != nil && f.MaxRetries != nil {
			m.Title += fmt.Sprintf(" (attempt %d of %d)", *f.RetryAttempt, *f.MaxRetries)
		}
	case "api_error":
		m.Title = "API error"
	case "hook_blocked":
		m.Title = "Blocked by hook"
	case "hook_error":
		m.Title = "Hook error"
	default:
		m.Title = strings.ReplaceAll(f.Kind, "_", " ")
	}
	if f.Hook != nil {
		m.Title += " " + *f.Hook
	}
	if f.Status != nil {
		m.Title += fmt.Sprintf(" · HTTP %d", *f.Status)
	}
	return m
}

// excerpt is the first line of s, cut to n runes.
func excerpt(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

// clock is the time of day of an RFC 3339 timestamp, "" when absent or
// malformed (a timestamp is transcript text: only digits get through).
func clock(ts *string) string {
	if ts == nil || !isTimestamp(*ts) {
		return ""
	}
	return (*ts)[11:19]
}

// when is an RFC 3339 timestamp as a reader writes it.
func when(ts string) string {
	if !isTimestamp(ts) {
		return ""
	}
	return ts[:10] + " " + ts[11:19] + " UTC"
}

// isTimestamp checks the "2006-01-02T15:04:05" head of a timestamp.
func isTimestamp(ts string) bool {
	const shape = "dddd-dd-ddTdd:dd:dd"
	if len(ts) < len(shape) {
		return false
	}
	for i := 0; i < len(shape); i++ {
		if shape[i] == 'd' && (ts[i] < '0' || ts[i] > '9') || shape[i] != 'd' && ts[i] != shape[i] {
			return false
		}
	}
	return true
}

// commandOf reads the record a slash command or a local command writes:
// its title ("/compact", "command output") and body; skip is set for the
// caveat Claude Code adds before them, which says nothing to a reader.
func commandOf(text string) (title, body string, skip bool) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "<local-command-caveat>") {
		return "", "", true
	}
	if name, ok := between(t, "command-name"); ok {
		args, _ := between(t, "command-args")
		return "Command " + strings.TrimSpace(name+" "+args), "", false
	}
	for _, k := range []struct{ tag, title string }{
		{"local-command-stdout", "Command output"}, {"local-command-stderr", "Command error output"},
		{"bash-input", "Shell command (!)"}, {"bash-stdout", "Shell output"}, {"bash-stderr", "Shell error output"},
	} {
		if v, ok := between(t, k.tag); ok {
			return k.title, v, false
		}
	}
	return "Command", text, false
}

// between returns the body of the first <tag>...</tag> in s.
func between(s, tag string) (string, bool) {
	_, rest, ok := strings.Cut(s, "<"+tag+">")
	if !ok {
		return "", false
	}
	body, _, ok := strings.Cut(rest, "</"+tag+">")
	return body, ok
}
