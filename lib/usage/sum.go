package usage

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ccpipe/ccpipe/lib/pricing"
	"github.com/ccpipe/ccpipe/lib/quote"
)

// SumKeys are the keys usage --sum groups by, alone or several joined
// with commas (day,model: one record per day and model); block, the
// 5-hour windows, stands alone.
var SumKeys = []string{"session", "model", "day", "week", "month", "project"}

// SumBy lists the groupings --sum knows alone (SumKeys and block).
var SumBy = append(slices.Clone(SumKeys), "block")

// ParseSum splits a --sum value into its keys, in the order given (which
// is the order the records are sorted by).
func ParseSum(s string) ([]string, error) {
	if s == "block" {
		return []string{"block"}, nil
	}
	var keys []string
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		switch {
		case k == "block":
			return nil, fmt.Errorf("--sum block stands alone (it cuts 5-hour windows, not groups)")
		case !slices.Contains(SumKeys, k):
			return nil, fmt.Errorf("unknown --sum %s (want one of %s, block, or several keys joined with commas such as day,model)", quote.Q(k), strings.Join(SumKeys, ", "))
		case slices.Contains(keys, k):
			return nil, fmt.Errorf("--sum %s names %s twice", quote.Q(s), k)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// Sum is a --sum record: the tokens of a group of messages. The keys of
// --sum name the group: Date, Week, Month, SessionID (with the session's
// Project), Model, Project; the others are left out.
type Sum struct {
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
	// With prices: the group's cost, the models that could not be priced
	// and those priced as the default model.
	// CostUSD is null when no message could be priced.
	CostUSD          json.RawMessage `json:"cost_usd,omitempty"`
	UnpricedModels   *[]string       `json:"unpriced_models,omitempty"`
	AssumedModels    *[]string       `json:"assumed_models,omitempty"`
	UnpricedMessages *int64          `json:"unpriced_messages,omitempty"`
	// By session: Claude Code's own figure for the session (its
	// cost-state records; null when it wrote none), and with prices what
	// ccpipe's differs by and the reasons that can be known.
	RecordedCostUSD   json.RawMessage `json:"recorded_cost_usd,omitempty"`
	CostDifferenceUSD json.RawMessage `json:"cost_difference_usd,omitempty"`
	DifferenceReasons *[]string       `json:"difference_reasons,omitempty"`

	cost *costSum
}

// SumOptions are the options of a Summer.
type SumOptions struct {
	// By is the --sum value (ParseSum checks it).
	By string
	// WeekStart is the first day of a week (Monday when nil); Location
	// the time zone of day, week and month.
	WeekStart *time.Weekday
	Location  *time.Location
	// Prices prices the messages; nil: no cost.
	Prices *pricing.Catalog
	// Now is the time a block is active at.
	Now time.Time
	// Partial: the messages are not all of a session's (a time window,
	// or subagents left out), a reason a session's figure differs.
	Partial bool
	// Warn reports what is left out or held at a bound.
	Warn func(string)
}

// Summer sums billed messages, each counted once already (Counter), into
// the groups of SumOptions.By or, for "block", ccusage's 5-hour blocks.
type Summer struct {
	o SumOptions
	// blocks holds every message for block, which orders them by time
	// before cutting windows.
	blocks []blockMsg
	sums   map[string]*Sum
	// The last day computed, which the next message most often shares.
	lastY, lastD int
	lastM        time.Month
	lastDay      string
	// overflowed holds the group and field of each sum held at a bound.
	overflowed map[string]struct{}
	groups     groupKeys
	// badTimes counts the messages whose timestamp does not parse, which
	// day/week/month and block cannot place.
	badTimes int
	// recorded is what each session's transcripts say of Claude Code's
	// own figure (by session).
	recorded map[string]*Recorded
}

// NewSummer returns a Summer of o; o.By must have passed ParseSum.
func NewSummer(o SumOptions) *Summer {
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	if o.Location == nil {
		o.Location = time.UTC
	}
	return &Summer{o: o, sums: map[string]*Sum{}, groups: newGroupKeys(o.By, o.WeekStart)}
}

// maxNamed is how many messages a warning of the same kind names.
const maxNamed = 10

// Add sums one message. A negative token count is warned of and summed
// as 0 (the message still counts).
func (u *Summer) Add(r *Message) {
	u.dropNegative(r)
	if u.o.By == "block" {
		u.addBlockMsg(r)
		return
	}
	u.sum(r)
}

func (u *Summer) sum(r *Message) {
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
		if !Add(f.sum, f.n) || (f.name == "total_tokens" && !tok) {
			u.overflow(group, f.name)
		}
	}
	s.Messages++
	if u.o.Prices != nil {
		u.addCost(s, r)
	}
	if !u.groups.has("model") && r.Model != "" && !slices.Contains(s.Models, r.Model) {
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

// str is s, or nil for "" (a key or time left empty prints null or
// is left out).
func str(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// sumOf is the sum of a group, made empty on first use; cwd is the
// project of a session group.
func (u *Summer) sumOf(group, cwd string) *Sum {
	s := u.sums[group]
	if s == nil {
		s = &Sum{}
		u.groups.name(s, group, cwd)
		u.sums[group] = s
	}
	return s
}

// Session lists a session with an assistant record (in the time window)
// when summing by session, billable messages or not: a session whose
// calls all failed, or a fork that made none of its own, is a row with 0
// messages. A transcript without an assistant record made no call and is
// not listed.
func (u *Summer) Session(id, cwd string) {
	if u.o.By == "session" && id != "" {
		u.sumOf(id, cwd)
	}
}

// Recording reports whether Claude Code's own figures are read: when
// summing by session.
func (u *Summer) Recording() bool { return u.o.By == "session" }

// Recorded is session sid's record of Claude Code's figure, made on
// first use; nil when the figures are not read.
func (u *Summer) Recorded(sid string) *Recorded {
	if !u.Recording() || sid == "" {
		return nil
	}
	if u.recorded == nil {
		u.recorded = map[string]*Recorded{}
	}
	r := u.recorded[sid]
	if r == nil {
		r = &Recorded{}
		u.recorded[sid] = r
	}
	return r
}

// AddRecorded adds what one transcript of session sid says of Claude
// Code's figure.
func (u *Summer) AddRecorded(sid string, r *Recorded) {
	if have := u.Recorded(sid); have != nil {
		have.Merge(r)
	}
}

// reconcile fills a session row's recorded figure, and with prices its
// difference from ccpipe's and the reasons for it.
func (u *Summer) reconcile(s *Sum) {
	if !u.Recording() || s.SessionID == nil {
		return
	}
	r := u.recorded[*s.SessionID]
	if r == nil || r.States == 0 {
		s.RecordedCostUSD = json.RawMessage("null")
		if u.o.Prices != nil {
			s.CostDifferenceUSD, s.DifferenceReasons = json.RawMessage("null"), &[]string{}
		}
		return
	}
	s.RecordedCostUSD = CostJSON(r.USD(), false)
	if u.o.Prices == nil {
		return
	}
	ours := 0.0
	if s.cost != nil {
		ours = s.cost.total
	}
	if string(s.CostUSD) == "null" {
		s.CostDifferenceUSD = json.RawMessage("null")
	} else {
		s.CostDifferenceUSD = CostJSON(r.Difference(ours), false)
	}
	why := r.Reasons(Reconcile{USD: ours, Tokens: s.TotalTokens,
		Unpriced: s.UnpricedMessages != nil && *s.UnpricedMessages > 0 || s.AssumedModels != nil && len(*s.AssumedModels) > 0,
		Prices:   u.o.Prices != pricing.Embedded(),
		Partial:  u.o.Partial})
	s.DifferenceReasons = nonNil(why)
}

// dropNegative keeps a negative token count out of the sums: it is
// flagged for its message and counted as 0 (the message still counts).
func (u *Summer) dropNegative(r *Message) {
	for _, f := range []struct {
		n    *int64
		name string
	}{
		{&r.Tokens.InputTokens, "input_tokens"}, {&r.Tokens.OutputTokens, "output_tokens"},
		{&r.Tokens.CacheReadInputTokens, "cache_read_input_tokens"}, {&r.Tokens.CacheCreationInputTokens, "cache_creation_input_tokens"},
	} {
		if *f.n < 0 {
			u.o.Warn(fmt.Sprintf("%s: usage.%s %d is negative, not summed", r.UUID, f.name, *f.n))
			*f.n = 0
		}
	}
}

// overflow warns, once per group and field, that a sum was held at
// int64's bound: the number printed is then a floor, not the sum.
func (u *Summer) overflow(group, field string) {
	k := group + "\x00" + field
	if _, ok := u.overflowed[k]; ok {
		return
	}
	if u.overflowed == nil {
		u.overflowed = map[string]struct{}{}
	}
	u.overflowed[k] = struct{}{}
	u.o.Warn(fmt.Sprintf("usage --sum %s %s: %s overflows a 64-bit integer; printed at its bound", u.o.By, quote.Q(display(group)), field))
}

// day is the calendar date of an RFC 3339 timestamp in Location; "" when
// it does not parse.
func (u *Summer) day(ts string) string {
	loc := u.o.Location
	if sec, ok := ParseUTC(ts); ok {
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

// ParseUTC reads the timestamps Claude Code writes,
// "2026-11-30T10:33:39.797Z" (a fraction of 1 to 9 digits, or none), as
// Unix seconds; false for any other form, which time.Parse then reads.
// It accepts exactly what time.Parse(time.RFC3339Nano) accepts of that
// form, to the second (FuzzParseUTC holds it to that).
func ParseUTC(ts string) (int64, bool) {
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

// badTime warns of a message whose timestamp is missing or does not
// parse, where it goes instead (what): the first ten are named, Finish
// counts them all.
func (u *Summer) badTime(r *Message, what string) {
	if u.badTimes++; u.badTimes > maxNamed {
		return
	}
	if r.Timestamp == "" {
		u.o.Warn("message " + quote.Q(r.MessageID) + ": no timestamp, " + what)
		return
	}
	u.o.Warn("message " + quote.Q(r.MessageID) + ": timestamp " + quote.Q(r.Timestamp) + " does not parse, " + what)
}

// Finish emits the sums (a *Sum each, or a *BlockSum each for block), in
// the order of the keys; notes are warned after the count of the
// messages no calendar could place, before the first sum.
func (u *Summer) Finish(emit func(any) error, notes ...string) error {
	if u.badTimes > maxNamed {
		u.o.Warn(fmt.Sprintf("usage --sum %s: %d messages in all with no timestamp or one that does not parse", u.o.By, u.badTimes))
	}
	for _, n := range notes {
		u.o.Warn(n)
	}
	if u.o.By == "block" {
		return u.finishBlocks(emit)
	}
	list := make([]*Sum, 0, len(u.sums))
	keys := make(map[*Sum]string, len(u.sums))
	for k, s := range u.sums {
		list = append(list, s)
		keys[s] = k
	}
	sort.Slice(list, func(i, j int) bool { return u.groups.less(keys[list[i]], keys[list[j]]) })
	for _, s := range list {
		if u.o.Prices != nil {
			s.finishCost()
		}
		u.reconcile(s)
		if err := emit(s); err != nil {
			return err
		}
	}
	clear(u.sums)
	return nil
}
