package extract

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/pricing"
	"github.com/ccpipe/ccpipe/lib/usage"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// Kinds lists the fact kinds an Extractor knows, in the order the help
// text names them.
var Kinds = []string{
	"prompts", "texts", "tools", "shell", "files", "subagents",
	"failures", "usage", "compactions", "conversation",
}

// SubagentsByDefault reports whether a session's facts of kind include
// its subagents' unless asked otherwise. Money and tokens do (usage: Claude
// Code's totalCostUSD, its status line and ccusage count every call a
// session paid for), and so do the session's actions on the machine
// (tools, shell, files, failures, and the subagents they start): a
// subagent's failed command or edited file is the session's, and Claude
// Code runs the hooks on them too (cc-hook backtest reads them). The
// conversation's kinds (prompts, texts, conversation, compactions) do not:
// a subagent's prompt and final text are already the Agent call's input
// and result in the main transcript, so reading them again would say them
// twice, and its working notes are not what the person read.
func SubagentsByDefault(kind string) bool {
	switch kind {
	case "usage", "tools", "shell", "files", "failures", "subagents":
		return true
	}
	return false
}

// Options select a kind and its switches.
type Options struct {
	Kind string
	// All keeps meta prompts, slash-command wrappers, interrupt markers and
	// compaction summaries (prompts).
	All bool
	// Thinking adds thinking blocks (texts, conversation).
	Thinking bool
	// Errors keeps only failed calls (shell, tools).
	Errors bool
	// Unique collapses files to one record per path.
	Unique bool
	// Subagents makes ReadTranscript read the session's subagent
	// transcripts too, after the main one.
	Subagents bool
	// Sum aggregates usage by session, model, day, week, month or
	// project, or several of them joined with commas (see ParseSum), or
	// cuts 5-hour blocks.
	Sum string
	// Location is the time zone of days, weeks and months; nil means UTC.
	Location *time.Location
	// WeekStart is the first day of a --sum week; nil is Monday, as
	// ISO 8601.
	WeekStart *time.Weekday
	// Since and Until keep the facts timestamped in [Since, Until] (a
	// zero bound is open); a fact without a timestamp is then left out.
	Since, Until time.Time
	// Workers bounds the transcripts ReadTranscripts reads at once; 0
	// means one per CPU.
	Workers int
	// Warn is called for each skipped line or unreadable file.
	Warn func(msg string)
	// KeepCopies keeps a fork's copied prompts and texts under the fork
	// (cc-render's page shows the conversation the transcript holds).
	KeepCopies bool
	// Prices, when set, prices every usage message (usage --cost).
	Prices *pricing.Catalog
	// Now is the time --sum block tells active blocks by (the commands
	// pass their cli.System's clock); zero: no block is active.
	Now time.Time
	// Priced, when set, is given each usage message counted (once, in the
	// --since/--until window), priced at Prices: cc-extract usage
	// --budgets sums the spend of them.
	Priced func(usage.Priced)
	// Cache, when set, keeps what the kind read from each transcript
	// (CacheName: usage's facts, lib/usage's Scanner; every other kind's entry
	// log, kindcache.go), so that the next read of it reads only what was
	// appended.
	Cache *cache.Store
	// JSONOnly: the facts are only written out as JSON (ndjson.Marshal,
	// ndjson.Writer: cc-extract), not read as Go values, so a tools fact
	// may keep its result as the JSON string the transcript wrote.
	JSONOnly bool
}

// Origin tells where an entry came from, when the reader knows better
// than the entry itself (a cc-entries cc_source, or the file being read).
type Origin struct {
	Path      string // the transcript file, "" when unknown
	Line      int
	SessionID string
	AgentID   string
}

// Base is the head of every fact: which session (and subagent) and which
// entry it came from.
type Base struct {
	SessionID *string `json:"session_id"`
	AgentID   *string `json:"agent_id"`
	UUID      *string `json:"uuid"`
	Timestamp *string `json:"timestamp"`
	// Cwd and Path (the transcript read) are not printed: cc-hook
	// backtest puts them in the hook payloads it rebuilds.
	Cwd  string `json:"-"`
	Path string `json:"-"`
}

// appendJSON writes b's members as encoding/json does, without braces
// (a fact's AppendJSON).
func (b *Base) appendJSON(dst []byte) []byte {
	dst = appendStrp(append(dst, `"session_id":`...), b.SessionID)
	dst = appendStrp(append(dst, `,"agent_id":`...), b.AgentID)
	dst = appendStrp(append(dst, `,"uuid":`...), b.UUID)
	return appendStrp(append(dst, `,"timestamp":`...), b.Timestamp)
}

func appendStrp(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return ndjson.AppendString(dst, *s)
}

func appendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

// handler is one kind's state machine.
type handler interface {
	entry(o *Origin, e *transcript.Entry) error
	// endFile flushes what cannot span transcripts (pending tool calls).
	endFile() error
	// finish flushes what spans the whole input (--unique, --sum).
	finish() error
}

// Extractor turns entries into facts of one kind.
type Extractor struct {
	opts  Options
	emit  func(any) error
	h     handler
	types []string
	// typeNeedles and needles prefilter lines before they are decoded.
	typeNeedles [][]byte
	needles     [][]byte
	usage       *usageState // set for the usage kind
	// lazyTools is set for the kinds that need only a join of tool calls.
	lazyTools bool
	// unreadable counts transcripts ReadTranscripts could not read.
	unreadable int
	// copies counts the tool calls a fork copied, left to the session
	// that made them (copied.go), and the sessions read.
	copies copies
	// early holds the warnings Warn is given while ReadTranscripts runs.
	early *earlyWarnings
	// noPrefilter turns the line filters and the lazy reads of failures
	// and subagents off: the reference a test compares them with.
	noPrefilter bool
	// wants is Wants' line filter (filter of h), made at its first call.
	wants    func(line []byte) bool
	wantsSet bool
	// listed, when set, is told each dir a handler lists besides the
	// transcript (a session's subagents): the cache keeps the file's
	// facts only as long as those dirs are as they were (kindcache.go).
	listed func(dir string)
	// borrowed: the entry being taken is a slice of the reader's line
	// (borrows), valid only while it is taken.
	borrowed bool
	// mark, when set, is told each line a file's read handed on, once
	// the handler took it: the cache's checkpoints (kindcache.go).
	mark func(r *fileRead, l *transcript.Line)
}

// recordTypes are the record types each kind reads; lines of other types
// are skipped before they are decoded.
var recordTypes = map[string][]string{
	"prompts":      {"user", "attachment", "assistant"},
	"texts":        {"assistant"},
	"tools":        {"user", "assistant"},
	"shell":        {"user", "assistant"},
	"files":        {"user", "assistant"},
	"subagents":    {"user", "assistant"},
	"failures":     {"user", "assistant", "system", "attachment"},
	"usage":        {"assistant"},
	"compactions":  {"user", "system"},
	"conversation": {"user", "assistant", "attachment"},
}

// needles narrow the lines a kind decodes further than their type: a line
// must hold one of them. Tool joins need only the records with tool_use or
// tool_result blocks, which spares decoding prompts and texts.
var needles = map[string][][]byte{
	"tools":       {[]byte(`"tool_use"`), []byte(`"tool_result"`)},
	"shell":       {[]byte(`"tool_use"`), []byte(`"tool_result"`)},
	"files":       {[]byte(`"tool_use"`), []byte(`"tool_result"`)},
	"subagents":   {[]byte(`"tool_use"`), []byte(`"tool_result"`), []byte("task-notification")},
	"compactions": {[]byte("compact_boundary"), []byte(`"isCompactSummary"`)},
}

// New returns an Extractor of opts.Kind that hands each fact to emit.
func New(opts Options, emit func(any) error) (*Extractor, error) {
	if !slices.Contains(Kinds, opts.Kind) {
		return nil, fmt.Errorf("unknown kind %q (want one of %s)", opts.Kind, strings.Join(Kinds, ", "))
	}
	if opts.Sum != "" {
		if _, err := usage.ParseSum(opts.Sum); err != nil {
			return nil, err
		}
	}
	if opts.Location == nil {
		opts.Location = time.UTC
	}
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	// The usage path lists subagents on one goroutine and reports on
	// another.
	var mu sync.Mutex
	warn := opts.Warn
	opts.Warn = func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		warn(msg)
	}
	x := &Extractor{opts: opts, types: recordTypes[opts.Kind], needles: needles[opts.Kind], early: &earlyWarnings{}}
	if opts.Kind == "usage" && opts.Sum == "session" {
		// Claude Code's own figure and its compactions (usage.Recorded).
		x.types = append(slices.Clip(x.types), "cost-state", "system")
	}
	x.emit = x.windowed(encodedOut(emit))
	// The quoted name alone, not `"type":"T"`: entries re-encoded with a
	// space after the colon must still pass (the type is confirmed on
	// decode), as they do through transcript.Options.Types.
	for _, t := range x.types {
		x.typeNeedles = append(x.typeNeedles, []byte(`"`+t+`"`))
	}
	switch opts.Kind {
	case "tools", "shell", "files":
		x.lazyTools = true
	case "usage":
		x.usage = newUsageState(x)
	}
	x.h = x.newHandler()
	return x, nil
}

// newHandler returns a fresh handler of x's kind, which emits through
// x.emit and reads x.opts. ReadTranscripts gives each file its own (see
// fork); Entry feeds x.h.
func (x *Extractor) newHandler() handler {
	switch x.opts.Kind {
	case "prompts":
		return &prompts{x: x}
	case "texts":
		return &texts{x: x}
	case "tools", "shell", "files":
		return newToolsKind(x)
	case "subagents":
		return newSubagents(x)
	case "failures":
		return newFailures(x)
	case "usage":
		return x.usage
	case "compactions":
		return &compactions{x: x}
	case "conversation":
		return &conversation{x: x}
	}
	panic("extract: no handler for kind " + x.opts.Kind) // New checked the kind
}

// Entry feeds one entry. Entries must come in file order; call EndFile at
// the end of each transcript when entries of several are fed.
func (x *Extractor) Entry(o Origin, e *transcript.Entry) error {
	if e == nil {
		return nil
	}
	x.copies.sawSession(cmp.Or(e.SessionID, o.SessionID))
	return x.h.entry(&o, e)
}

// EndFile flushes the state of one transcript: tool calls still without a
// result are emitted with a null result.
func (x *Extractor) EndFile() error { return x.h.endFile() }

// Close flushes everything: the end of the input.
func (x *Extractor) Close() error {
	if err := x.h.endFile(); err != nil {
		return err
	}
	if err := x.h.finish(); err != nil {
		return err
	}
	x.copies.report(x.opts.Kind, x.opts.Warn)
	return nil
}

// Types are the record types this kind reads (a prefilter for readers).
func (x *Extractor) Types() []string { return x.types }

// base builds the head of a fact from an entry and its origin.
func base(o *Origin, e *transcript.Entry) Base {
	sid, aid := e.SessionID, e.AgentID
	if sid == "" {
		sid = o.SessionID
	}
	if aid == "" {
		aid = o.AgentID
	}
	return Base{SessionID: str(sid), AgentID: str(aid), UUID: str(e.UUID), Timestamp: str(e.TimestampRaw), Cwd: e.Cwd, Path: o.Path}
}

// str is nil for "" so that a missing value reads null, not "".
func str(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ErrUnreadable is wrapped by ReadTranscripts' error when some transcripts
// could not be read (each one was reported through Options.Warn).
var ErrUnreadable = errors.New("unreadable transcripts")

// decodeObject decodes raw into v when raw is an object; fields of the
// wrong type are left zero. It reports whether raw was an object.
func decodeObject(raw json.RawMessage, v any) bool {
	raw = trimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	_ = json.Unmarshal(raw, v) // a type mismatch still decodes the other fields
	return true
}

// objField is a member readObject reads: into str or strp (a string;
// strp is set to nil by null) or b (a bool).
type objField struct {
	name string
	str  *string
	strp **string
	b    *bool
}

// readObject reads the named members of the object raw as decodeObject
// would decode them into a struct of those fields, without decoding the
// rest (a tool's output, often most of the bytes). It reports false when
// it cannot be sure of that (a member of another type, written twice or
// in another case, or raw not an object); the caller then decodes.
func readObject(raw []byte, fields []objField) bool {
	c := jsonscan.New(raw)
	if c.Peek() != '{' || c.Enter() != nil {
		return false
	}
	var seen uint64
	names := make([]string, len(fields))
	for i := range fields {
		names[i] = fields[i].name
	}
	for {
		k, esc, more, err := c.Member()
		if err != nil {
			return false
		}
		if !more {
			return c.End() == nil
		}
		if esc {
			k = []byte(jsonscan.Key(k, esc))
		}
		i := slices.IndexFunc(fields, func(f objField) bool { return f.name == string(k) })
		if i < 0 {
			if jsonscan.Folds(k, names...) || c.Skip() != nil {
				return false
			}
			continue
		}
		if seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		f := &fields[i]
		switch p := c.Peek(); {
		case p == 'n':
			if _, err := c.Null(); err != nil {
				return false
			}
			if f.strp != nil {
				*f.strp = nil
			}
		case p == '"' && (f.str != nil || f.strp != nil):
			v, err := c.String()
			if err != nil {
				return false
			}
			if f.str != nil {
				*f.str = string(v)
			} else {
				s := string(v)
				*f.strp = &s
			}
		case (p == 't' || p == 'f') && f.b != nil:
			v, err := c.Bool()
			if err != nil {
				return false
			}
			*f.b = v
		default:
			return false
		}
	}
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
