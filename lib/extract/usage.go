package extract

import (
	"cmp"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/ccpipe/ccpipe/lib/pricing"
	"github.com/ccpipe/ccpipe/lib/quote"
	"github.com/ccpipe/ccpipe/lib/transcript"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// Usage is a usage fact: one API message's tokens, counted once. Its head
// is the message's first record.
type Usage struct {
	Base
	MessageID *string `json:"message_id"`
	// RequestID is the record's requestId; RequestRef its requestRef (the
	// api-request record). Older and synthetic records lack either.
	RequestID                *string `json:"request_id"`
	RequestRef               *string `json:"request_ref"`
	Model                    *string `json:"model"`
	InputTokens              int64   `json:"input_tokens"`
	OutputTokens             int64   `json:"output_tokens"`
	CacheReadInputTokens     int64   `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64   `json:"cache_creation_input_tokens"`
}

// UsageSum is a usage --sum fact: the tokens of a group of messages.
// The keys of --sum name the group: Date, Week, Month, SessionID (with
// the session's Project), Model, Project; the others are left out.
type UsageSum struct {
	Date                     *string  `json:"date,omitempty"`
	Week                     *string  `json:"week,omitempty"`
	Month                    *string  `json:"month,omitempty"`
	SessionID                *string  `json:"session_id,omitempty"`
	Model                    *string  `json:"model,omitempty"`
	Project                  *string  `json:"project,omitempty"`
	InputTokens              int64    `json:"input_tokens"`
	OutputTokens             int64    `json:"output_tokens"`
	CacheReadInputTokens     int64    `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64    `json:"cache_creation_input_tokens"`
	TotalTokens              int64    `json:"total_tokens"`
	Messages                 int64    `json:"messages"`
	Models                   []string `json:"models,omitempty"`
	FirstTimestamp           *string  `json:"first_timestamp"`
	LastTimestamp            *string  `json:"last_timestamp"`
	// With --cost: the group's cost, the models that could not be priced
	// and those priced as the default model.
	// CostUSD is null under --cost when no message could be priced.
	CostUSD          json.RawMessage `json:"cost_usd,omitempty"`
	UnpricedModels   *[]string       `json:"unpriced_models,omitempty"`
	AssumedModels    *[]string       `json:"assumed_models,omitempty"`
	UnpricedMessages *int64          `json:"unpriced_messages,omitempty"`
	// With --sum session: Claude Code's own figure for the session (its
	// cost-state records; null when it wrote none), and with --cost what
	// ccpipe's differs by and the reasons that can be known.
	RecordedCostUSD   json.RawMessage `json:"recorded_cost_usd,omitempty"`
	CostDifferenceUSD json.RawMessage `json:"cost_difference_usd,omitempty"`
	DifferenceReasons *[]string       `json:"difference_reasons,omitempty"`

	cost *costSum
}

// usageRec is one message's usage, as the fast scanner or the decoded
// entry gives it (lib/usage's Message).
type usageRec = usage.Message

// usageState counts each message once across the whole input and emits it
// or adds it to its group.
type usageState struct {
	x *Extractor
	// blocks holds every message for --sum block, which orders them by
	// time before cutting windows.
	blocks []blockMsg
	g      usage.Merger
	// counted counts each message once across the input: a fork's copies
	// count in the session that made them, when it is read.
	counted usage.Counter
	sums    map[string]*UsageSum
	// The last day computed, which the next message most often shares.
	lastY, lastD int
	lastM        time.Month
	lastDay      string
	// overflowed holds the group and field of each sum held at a bound.
	overflowed map[string]struct{}
	// groups are the keys of --sum and their calendar.
	groups groupKeys
	// badTimes counts the messages whose timestamp does not parse, which
	// --sum day/week/month and block cannot place.
	badTimes int
	// recorded is what each session's transcripts say of Claude Code's
	// own figure (--sum session).
	recorded map[string]*usage.Recorded
}

func newUsageState(x *Extractor) *usageState {
	u := &usageState{x: x, sums: map[string]*UsageSum{},
		groups: newGroupKeys(x.opts.Sum, x.opts.WeekStart)}
	u.g.Out = func(r *usageRec) error { return u.take(r, r.Key) }
	return u
}

func (u *usageState) entry(o *Origin, e *transcript.Entry) error {
	if e.Type != "assistant" {
		// (cost-state and system records come under --sum session.)
		if r := u.recordedOf(cmp.Or(e.SessionID, o.SessionID)); r != nil {
			r.AddLine(e.Raw) // in file order, as a file's scan reads them
		}
		return nil
	}
	r, ok := UsageMessage(o, e)
	if rec := u.recordedOf(cmp.Or(e.SessionID, o.SessionID)); ok && r.Copied && rec != nil {
		rec.Copied++
	}
	if !ok {
		if b := base(o, e); e.Type == "assistant" && b.AgentID == nil && u.x.inWindow(deref(b.Timestamp)) {
			u.session(deref(b.SessionID), e.Cwd)
		}
		return nil
	}
	if u.x.opts.Prices != nil {
		r.RequestedModel, r.Usage = usage.CostFields(e.Raw)
	}
	return u.g.Add(&r)
}

// UsageMessage is a decoded assistant entry as a message of one record,
// when lib/pricing bills it (for a lib/usage Merger). Its session is the
// one that paid for it (a fork's copy counts in the original). Its
// RequestedModel and Usage are not read (usage.CostFields reads them of
// the entry's line), nor the cache write's split, which a decoded entry
// does not hold.
func UsageMessage(o *Origin, e *transcript.Entry) (usageRec, bool) {
	rec := BillRecord(o, e)
	if !rec.Billable() {
		return usageRec{}, false
	}
	b := base(o, e)
	mu := e.Message.Usage
	return usageRec{Key: usage.KeyOf(&rec), MessageID: rec.MessageID, RequestID: rec.RequestID, RequestRef: rec.RequestRef, UUID: e.UUID, Timestamp: e.TimestampRaw, Model: e.Message.Model,
		SessionID: rec.Owner(), AgentID: deref(b.AgentID), Cwd: e.Cwd, Copied: rec.Copied(),
		Tokens: usage.Tokens{InputTokens: mu.InputTokens, OutputTokens: mu.OutputTokens,
			CacheCreationInputTokens: mu.CacheCreationInputTokens, CacheReadInputTokens: mu.CacheReadInputTokens}}, true
}

// BillRecord is what lib/pricing's billing rule reads of a decoded entry
// (its session the origin's when the entry has none).
func BillRecord(o *Origin, e *transcript.Entry) pricing.Record {
	rec := pricing.Record{Type: e.Type, UUID: e.UUID, SessionID: e.SessionID}
	if rec.SessionID == "" && o != nil {
		rec.SessionID = o.SessionID
	}
	if m := e.Message; m != nil {
		rec.Model, rec.UsageObject, rec.MessageID = m.Model, m.Usage != nil, m.ID
	}
	if a := e.Assistant; a != nil {
		rec.APIError, rec.RequestID, rec.RequestRef, rec.RequestSessionID = a.IsAPIErrorMessage, a.RequestID, a.RequestRef, a.RequestSessionID
	}
	return rec
}

// recording reports whether Claude Code's own figures are read: under
// --sum session.
func (u *usageState) recording() bool { return u.x.opts.Sum == "session" }

// recordedOf is session sid's record of Claude Code's figure, made on
// first use; nil when the figures are not read.
func (u *usageState) recordedOf(sid string) *usage.Recorded {
	if !u.recording() || sid == "" {
		return nil
	}
	if u.recorded == nil {
		u.recorded = map[string]*usage.Recorded{}
	}
	r := u.recorded[sid]
	if r == nil {
		r = &usage.Recorded{}
		u.recorded[sid] = r
	}
	return r
}

// addRecorded adds what one transcript of session sid says of Claude
// Code's figure (a file read by the fast path).
func (u *usageState) addRecorded(sid string, r *usage.Recorded) {
	if have := u.recordedOf(sid); have != nil {
		have.Merge(r)
	}
}

// reconcile fills a session row's recorded figure, and with --cost its
// difference from ccpipe's and the reasons for it.
func (u *usageState) reconcile(s *UsageSum) {
	if !u.recording() || s.SessionID == nil {
		return
	}
	r := u.recorded[*s.SessionID]
	if r == nil || r.States == 0 {
		s.RecordedCostUSD = json.RawMessage("null")
		if u.x.opts.Prices != nil {
			s.CostDifferenceUSD, s.DifferenceReasons = json.RawMessage("null"), &[]string{}
		}
		return
	}
	s.RecordedCostUSD = costJSON(r.USD(), false)
	if u.x.opts.Prices == nil {
		return
	}
	ours := 0.0
	if s.cost != nil {
		ours = s.cost.total
	}
	if string(s.CostUSD) == "null" {
		s.CostDifferenceUSD = json.RawMessage("null")
	} else {
		s.CostDifferenceUSD = costJSON(r.Difference(ours), false)
	}
	why := r.Reasons(usage.Reconcile{USD: ours, Tokens: s.TotalTokens,
		Unpriced: s.UnpricedMessages != nil && *s.UnpricedMessages > 0 || s.AssumedModels != nil && len(*s.AssumedModels) > 0,
		Prices:   u.x.opts.Prices != pricing.Embedded(),
		Partial:  !u.x.opts.Since.IsZero() || !u.x.opts.Until.IsZero() || !u.x.opts.Subagents})
	s.DifferenceReasons = nonNil(why)
}

// take counts a whole message once.
func (u *usageState) take(r *usageRec, key uint64) error {
	if !u.x.inWindow(r.Timestamp) {
		return nil
	}
	if !u.counted.Count(key, r.Copied, r.SessionID) {
		// Counted already, or a copy counted with the original's own
		// record, whenever it comes (left out, and counted at the end,
		// if it never does).
		return nil
	}
	if u.x.opts.Priced != nil && u.x.opts.Prices != nil {
		u.x.opts.Priced(r.Priced(u.x.opts.Prices))
	}
	if u.x.opts.Sum == "" {
		rec := Usage{
			Base:      Base{SessionID: str(r.SessionID), AgentID: str(r.AgentID), UUID: str(r.UUID), Timestamp: str(r.Timestamp)},
			MessageID: str(r.MessageID), RequestID: str(r.RequestID), RequestRef: str(r.RequestRef), Model: str(r.Model),
			InputTokens: r.Tokens.InputTokens, OutputTokens: r.Tokens.OutputTokens,
			CacheReadInputTokens: r.Tokens.CacheReadInputTokens, CacheCreationInputTokens: r.Tokens.CacheCreationInputTokens,
		}
		if u.x.opts.Prices != nil {
			return u.x.emit(u.costedUsage(r, rec))
		}
		return u.x.emit(rec)
	}
	u.dropNegative(r)
	if u.x.opts.Sum == "block" {
		u.addBlockMsg(r)
		return nil
	}
	u.sum(r)
	return nil
}

func (u *usageState) sum(r *usageRec) {
	group := u.group(r)
	s := u.sumOf(group, r.Cwd)
	total, tok := r.Tokens.Total()
	for _, f := range []struct {
		sum  *int64
		n    int64
		name string
	}{
		{&s.InputTokens, r.Tokens.InputTokens, "input_tokens"},
		{&s.OutputTokens, r.Tokens.OutputTokens, "output_tokens"},
		{&s.CacheReadInputTokens, r.Tokens.CacheReadInputTokens, "cache_read_input_tokens"},
		{&s.CacheCreationInputTokens, r.Tokens.CacheCreationInputTokens, "cache_creation_input_tokens"},
		{&s.TotalTokens, total, "total_tokens"},
	} {
		if !usage.Add(f.sum, f.n) || (f.name == "total_tokens" && !tok) {
			u.overflow(group, f.name)
		}
	}
	s.Messages++
	if u.x.opts.Prices != nil {
		u.addCost(s, r)
	}
	if !u.groups.has("model") && r.Model != "" && !containsStr(s.Models, r.Model) {
		s.Models = append(s.Models, r.Model)
	}
	if r.Timestamp != "" {
		// (Set in place: the last timestamp moves on with most messages.)
		if s.FirstTimestamp == nil {
			s.FirstTimestamp, s.LastTimestamp = str(r.Timestamp), str(r.Timestamp)
		}
		if r.Timestamp < *s.FirstTimestamp {
			*s.FirstTimestamp = r.Timestamp
		}
		if r.Timestamp > *s.LastTimestamp {
			*s.LastTimestamp = r.Timestamp
		}
	}
}

// sumOf is the sum of a group, made empty on first use; cwd is the
// project of a session group.
func (u *usageState) sumOf(group, cwd string) *UsageSum {
	s := u.sums[group]
	if s == nil {
		s = &UsageSum{}
		u.groups.name(s, group, cwd)
		u.sums[group] = s
	}
	return s
}

// session lists a session with an assistant record (in the --since/--until
// window) under --sum session, billable messages or not: a session whose calls all failed, or a fork
// that made none of its own, is a row with 0 messages. A transcript
// without an assistant record made no call and is not listed: each of
// the readers (files, entries, stdin) sees the assistant records alone.
func (u *usageState) session(id, cwd string) {
	if u.x.opts.Sum == "session" && id != "" {
		u.sumOf(id, cwd)
	}
}

// dropNegative keeps a negative token count out of the sums: it is
// flagged for its message and counted as 0 (the message still counts).
func (u *usageState) dropNegative(r *usageRec) {
	for _, f := range []struct {
		n    *int64
		name string
	}{
		{&r.Tokens.InputTokens, "input_tokens"}, {&r.Tokens.OutputTokens, "output_tokens"},
		{&r.Tokens.CacheReadInputTokens, "cache_read_input_tokens"}, {&r.Tokens.CacheCreationInputTokens, "cache_creation_input_tokens"},
	} {
		if *f.n < 0 {
			u.x.opts.Warn(fmt.Sprintf("%s: usage.%s %d is negative, not summed", r.UUID, f.name, *f.n))
			*f.n = 0
		}
	}
}

// overflow warns, once per group and field, that a sum was held at
// int64's bound: the number printed is then a floor, not the sum.
func (u *usageState) overflow(group, field string) {
	k := group + "\x00" + field
	if _, ok := u.overflowed[k]; ok {
		return
	}
	if u.overflowed == nil {
		u.overflowed = map[string]struct{}{}
	}
	u.overflowed[k] = struct{}{}
	u.x.opts.Warn(fmt.Sprintf("usage --sum %s %s: %s overflows a 64-bit integer; printed at its bound", u.x.opts.Sum, quote.Q(display(group)), field))
}

func containsStr(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// day is the calendar date of an RFC 3339 timestamp in Options.Location;
// "" when it does not parse.
func (u *usageState) day(ts string) string {
	loc := u.x.opts.Location
	if sec, ok := parseUTC(ts); ok {
		if loc == time.UTC {
			return ts[:10]
		}
		// Claude Code's own form: no time.Parse, and the day is built
		// from a cached string of the last one seen.
		y, m, d := time.Unix(sec, 0).In(loc).Date()
		if y == u.lastY && m == u.lastM && d == u.lastD {
			return u.lastDay
		}
		u.lastY, u.lastM, u.lastD = y, m, d
		u.lastDay = time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
		return u.lastDay
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ""
	}
	return t.In(loc).Format(time.DateOnly)
}

// parseUTC reads the timestamps Claude Code writes,
// "2026-11-30T10:33:39.797Z" (a fraction of 1 to 9 digits, or none), as
// Unix seconds; false for any other form, which time.Parse then reads.
// It accepts exactly what time.Parse(time.RFC3339Nano) accepts of that
// form, to the second (FuzzParseUTC holds it to that).
func parseUTC(ts string) (int64, bool) {
	n := len(ts)
	if n < 20 || ts[n-1] != 'Z' || ts[4] != '-' || ts[7] != '-' || ts[10] != 'T' || ts[13] != ':' || ts[16] != ':' {
		return 0, false
	}
	if n > 20 {
		if ts[19] != '.' || n-21 < 1 || n-21 > 9 {
			return 0, false
		}
		for i := 20; i < n-1; i++ {
			if ts[i] < '0' || ts[i] > '9' {
				return 0, false
			}
		}
	}
	num := func(i, w int) int {
		v := 0
		for j := i; j < i+w; j++ {
			c := ts[j]
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	y, mo, d, h, mi, s := num(0, 4), num(5, 2), num(8, 2), num(11, 2), num(14, 2), num(17, 2)
	if y < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59 {
		return 0, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, s, 0, time.UTC)
	if t.Day() != d {
		return 0, false // a day past its month's end, which time.Date carries on
	}
	return t.Unix(), true
}

func (u *usageState) endFile() error { return u.g.Flush() }

// badTime warns of a message whose timestamp is missing or does not parse, where it
// goes instead (what): the first ten are named, finish counts them all.
func (u *usageState) badTime(r *usageRec, what string) {
	if u.badTimes++; u.badTimes > maxFileWarnings {
		return
	}
	if r.Timestamp == "" {
		u.x.opts.Warn("message " + quote.Q(r.MessageID) + ": no timestamp, " + what)
		return
	}
	u.x.opts.Warn("message " + quote.Q(r.MessageID) + ": timestamp " + quote.Q(r.Timestamp) + " does not parse, " + what)
}

func (u *usageState) finish() error {
	if u.badTimes > maxFileWarnings {
		u.x.opts.Warn(fmt.Sprintf("usage --sum %s: %d messages in all with no timestamp or one that does not parse", u.x.opts.Sum, u.badTimes))
	}
	if left := u.counted.Uncounted(); len(left) > 0 {
		u.x.opts.Warn(ForkNote("usage", left))
	}
	if u.x.opts.Sum == "" {
		return nil
	}
	if u.x.opts.Sum == "block" {
		return u.finishBlocks()
	}
	list := make([]*UsageSum, 0, len(u.sums))
	keys := make(map[*UsageSum]string, len(u.sums))
	for k, s := range u.sums {
		list = append(list, s)
		keys[s] = k
	}
	sort.Slice(list, func(i, j int) bool { return u.groups.less(keys[list[i]], keys[list[j]]) })
	for _, s := range list {
		if u.x.opts.Prices != nil {
			s.finishCost()
		}
		u.reconcile(s)
		if err := u.x.emit(s); err != nil {
			return err
		}
	}
	clear(u.sums)
	return nil
}
