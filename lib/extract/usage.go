package extract

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/ccpipe/ccpipe/lib/pricing"
	"github.com/ccpipe/ccpipe/lib/transcript"
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

	cost *costSum
}

// usageRec is one assistant record's usage, as the fast scanner or the
// decoded entry gives it.
type usageRec struct {
	msgID, reqID, reqRef    string
	uuid, ts                string
	model                   string
	sessionID, agentID, cwd string
	// copied: a fork's copy of another session's message (pricing's
	// Record.Copied).
	copied bool
	u      TokenUsage
	// With --cost: the request model and the raw usage object.
	reqModel string
	usageRaw string // a string, so that usageRec stays comparable
	// keyed: k is the key, read from the --sum cache, which keeps the
	// key and not the ids it is made of.
	keyed bool
	k     uint64
}

func (r *usageRec) total() int64 {
	t, _ := addAll(r.u.InputTokens, r.u.OutputTokens, r.u.CacheReadInputTokens, r.u.CacheCreationInputTokens)
	return t
}

// addSat adds b to *a, holding the sum at int64's bounds instead of
// wrapping; it reports false when it had to.
func addSat(a *int64, b int64) bool {
	s := *a + b
	switch {
	case b > 0 && s < *a:
		*a = math.MaxInt64
		return false
	case b < 0 && s > *a:
		*a = math.MinInt64
		return false
	}
	*a = s
	return true
}

func addAll(v ...int64) (int64, bool) {
	var t int64
	ok := true
	for _, n := range v {
		ok = addSat(&t, n) && ok
	}
	return t, ok
}

// bill is the record as lib/pricing's billing rule reads it.
func (r *usageRec) bill() pricing.Record {
	return pricing.Record{Type: "assistant", MessageID: r.msgID, RequestID: r.reqID, RequestRef: r.reqRef, UUID: r.uuid}
}

// key identifies the API message a record belongs to (pricing's
// Record.AppendKey), hashed: the seen set holds 8 bytes a message, and
// the usage cache keeps them for --sum (so the hash, 64-bit FNV-1a, is
// the same in every process; two of a million keys meet by chance once
// in 3e7 runs).
func (r *usageRec) key() uint64 {
	if r.keyed {
		return r.k
	}
	var buf [160]byte
	b := r.bill()
	h := uint64(14695981039346656037)
	for _, c := range b.AppendKey(buf[:0]) {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

// grouper folds the records of one message (written one per content
// block, each repeating the usage) into one, as pricing.Replaces says.
type grouper struct {
	cur    usageRec
	curKey uint64
	have   bool
	out    func(*usageRec, uint64) error
}

func (g *grouper) add(r *usageRec) error {
	k := r.key()
	if g.have && k == g.curKey {
		if pricing.Replaces(float64(r.total()), float64(g.cur.total())) {
			uuid, ts := g.cur.uuid, g.cur.ts
			g.cur = *r
			g.cur.uuid, g.cur.ts = uuid, ts
		}
		return nil
	}
	if err := g.flush(); err != nil {
		return err
	}
	g.cur, g.curKey, g.have = *r, k, true
	return nil
}

func (g *grouper) flush() error {
	if !g.have {
		return nil
	}
	g.have = false
	return g.out(&g.cur, g.curKey)
}

// usageState counts each message once across the whole input and emits it
// or adds it to its group.
type usageState struct {
	x *Extractor
	// blocks holds every message for --sum block, which orders them by
	// time before cutting windows.
	blocks []blockMsg
	g      grouper
	seen   keySet
	// copies holds the keys of the messages read only as a fork's copies
	// so far: they count in the session that made them, when it is read.
	copies map[uint64]struct{}
	sums   map[string]*UsageSum
	// The last day computed, which the next message most often shares.
	lastY, lastD int
	lastM        time.Month
	lastDay      string
	// overflowed holds the group and field of each sum held at a bound.
	overflowed map[string]struct{}
	// groups are the keys of --sum and their calendar.
	groups groupKeys
}

func newUsageState(x *Extractor) *usageState {
	u := &usageState{x: x, copies: map[uint64]struct{}{}, sums: map[string]*UsageSum{},
		groups: newGroupKeys(x.opts.Sum, x.opts.WeekStart)}
	u.g.out = u.take
	return u
}

func (u *usageState) entry(o *Origin, e *transcript.Entry) error {
	r, ok := usageOf(o, e)
	if !ok {
		if b := base(o, e); e.Type == "assistant" && b.AgentID == nil && u.x.inWindow(deref(b.Timestamp)) {
			u.session(deref(b.SessionID), e.Cwd)
		}
		return nil
	}
	if u.x.opts.Prices != nil {
		r.reqModel, r.usageRaw = costFields(e.Raw)
	}
	return u.g.add(&r)
}

// usageOf reads an assistant entry's usage when lib/pricing bills it. Its
// session is the one that paid for it (a fork's copy counts in the
// original).
func usageOf(o *Origin, e *transcript.Entry) (usageRec, bool) {
	rec := BillRecord(o, e)
	if !rec.Billable() {
		return usageRec{}, false
	}
	b := base(o, e)
	mu := e.Message.Usage
	return usageRec{msgID: rec.MessageID, reqID: rec.RequestID, reqRef: rec.RequestRef, uuid: e.UUID, ts: e.TimestampRaw, model: e.Message.Model,
		sessionID: rec.Owner(), agentID: deref(b.AgentID), cwd: e.Cwd, copied: rec.Copied(),
		u: TokenUsage{InputTokens: mu.InputTokens, OutputTokens: mu.OutputTokens,
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

// take counts a whole message once.
func (u *usageState) take(r *usageRec, key uint64) error {
	if !u.x.inWindow(r.ts) {
		return nil
	}
	if u.seen.has(key) {
		return nil
	}
	if r.copied {
		// Counted with the original's own record, whenever it comes;
		// left out (and counted at the end) if it never does.
		if len(u.copies) < maxCopies {
			u.copies[key] = struct{}{}
		}
		return nil
	}
	u.seen.add(key)
	delete(u.copies, key)
	if u.x.opts.Sum == "" {
		rec := Usage{
			Base:      Base{SessionID: str(r.sessionID), AgentID: str(r.agentID), UUID: str(r.uuid), Timestamp: str(r.ts)},
			MessageID: str(r.msgID), RequestID: str(r.reqID), RequestRef: str(r.reqRef), Model: str(r.model),
			InputTokens: r.u.InputTokens, OutputTokens: r.u.OutputTokens,
			CacheReadInputTokens: r.u.CacheReadInputTokens, CacheCreationInputTokens: r.u.CacheCreationInputTokens,
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
	s := u.sumOf(group, r.cwd)
	_, tok := addAll(r.u.InputTokens, r.u.OutputTokens, r.u.CacheReadInputTokens, r.u.CacheCreationInputTokens)
	for _, f := range []struct {
		sum  *int64
		n    int64
		name string
	}{
		{&s.InputTokens, r.u.InputTokens, "input_tokens"},
		{&s.OutputTokens, r.u.OutputTokens, "output_tokens"},
		{&s.CacheReadInputTokens, r.u.CacheReadInputTokens, "cache_read_input_tokens"},
		{&s.CacheCreationInputTokens, r.u.CacheCreationInputTokens, "cache_creation_input_tokens"},
		{&s.TotalTokens, r.total(), "total_tokens"},
	} {
		if !addSat(f.sum, f.n) || (f.name == "total_tokens" && !tok) {
			u.overflow(group, f.name)
		}
	}
	s.Messages++
	if u.x.opts.Prices != nil {
		u.addCost(s, r)
	}
	if !u.groups.has("model") && r.model != "" && !containsStr(s.Models, r.model) {
		s.Models = append(s.Models, r.model)
	}
	if r.ts != "" {
		// (Set in place: the last timestamp moves on with most messages.)
		if s.FirstTimestamp == nil {
			s.FirstTimestamp, s.LastTimestamp = str(r.ts), str(r.ts)
		}
		if r.ts < *s.FirstTimestamp {
			*s.FirstTimestamp = r.ts
		}
		if r.ts > *s.LastTimestamp {
			*s.LastTimestamp = r.ts
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
		{&r.u.InputTokens, "input_tokens"}, {&r.u.OutputTokens, "output_tokens"},
		{&r.u.CacheReadInputTokens, "cache_read_input_tokens"}, {&r.u.CacheCreationInputTokens, "cache_creation_input_tokens"},
	} {
		if *f.n < 0 {
			u.x.opts.Warn(fmt.Sprintf("%s: usage.%s %d is negative, not summed", r.uuid, f.name, *f.n))
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
	u.x.opts.Warn(fmt.Sprintf("usage --sum %s %q: %s overflows a 64-bit integer; printed at its bound", u.x.opts.Sum, display(group), field))
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
	if loc == time.UTC && len(ts) >= 20 && ts[len(ts)-1] == 'Z' && ts[10] == 'T' {
		return ts[:10]
	}
	if sec, ok := parseUTC(ts); ok {
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

func (u *usageState) endFile() error { return u.g.flush() }

// maxCopies bounds the copied messages remembered for the warning.
const maxCopies = 1 << 20

func (u *usageState) finish() error {
	if n := len(u.copies); n > 0 {
		u.x.opts.Warn(fmt.Sprintf("usage: %d messages a fork copied from a session not read are left out: they count in that session", n))
		clear(u.copies)
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
		if err := u.x.emit(s); err != nil {
			return err
		}
	}
	clear(u.sums)
	return nil
}
