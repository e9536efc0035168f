package extract

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ccpipe/ccpipe/lib/quote"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// SumKeys are the keys usage --sum groups by, alone or several joined
// with commas (day,model: one record per day and model); block, the
// 5-hour windows, stands alone.
var SumKeys = []string{"session", "model", "day", "week", "month", "project"}

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

// groupKeys is the state of a --sum of keys: the calendar of day, week
// and month, and each session's first message (the order of its groups).
type groupKeys struct {
	keys      []string
	weekStart time.Weekday
	// weeks caches a date's week (the date of its first day).
	weeks map[string]string
	// sessionFirst is each session's earliest timestamp.
	sessionFirst map[string]string
	// calendar is the first of day, week and month in keys, if any.
	calendar string
}

func newGroupKeys(sum string, weekStart *time.Weekday) groupKeys {
	keys, _ := ParseSum(sum) // New checked it
	g := groupKeys{keys: keys, weekStart: time.Monday, weeks: map[string]string{}, sessionFirst: map[string]string{}}
	if weekStart != nil {
		g.weekStart = *weekStart
	}
	for _, k := range keys {
		if k == "day" || k == "week" || k == "month" {
			g.calendar = k
			break
		}
	}
	return g
}

func (g *groupKeys) has(k string) bool { return slices.Contains(g.keys, k) }

// group is the key of r's group: its parts joined by NUL.
func (u *usageState) group(r *usageRec) string {
	g := &u.groups
	if len(g.keys) == 1 {
		return u.part(g.keys[0], r) // most often: no slice, no join
	}
	parts := make([]string, len(g.keys))
	for i, k := range g.keys {
		parts[i] = u.part(k, r)
	}
	return strings.Join(parts, "\x00")
}

// part is r's part of a group key for --sum key k.
func (u *usageState) part(k string, r *usageRec) string {
	g := &u.groups
	switch k {
	case "day", "week", "month":
		d := u.day(r.Timestamp)
		if d == "" {
			if k == g.calendar {
				// Once a message, under the first of its calendar keys.
				u.badTime(r, "summed under no "+k)
			}
			return ""
		}
		switch k {
		case "week":
			return g.week(d)
		case "month":
			return d[:7]
		}
		return d
	case "session":
		if f, ok := g.sessionFirst[r.SessionID]; r.Timestamp != "" && (!ok || r.Timestamp < f) {
			g.sessionFirst[r.SessionID] = r.Timestamp
		}
		return r.SessionID
	case "model":
		return r.Model
	case "project":
		return r.Cwd
	}
	return ""
}

// name fills a new group's key fields from its key. A session group also
// names its project (the cwd of its first message).
func (g *groupKeys) name(s *UsageSum, group, cwd string) {
	parts := strings.Split(group, "\x00")
	for i, k := range g.keys {
		p := str(parts[i])
		switch k {
		case "day":
			s.Date = p
		case "week":
			s.Week = p
		case "month":
			s.Month = p
		case "session":
			s.SessionID = p
			if !g.has("project") {
				s.Project = str(cwd)
			}
		case "model":
			s.Model = p
		case "project":
			s.Project = p
		}
	}
}

// week is the date of the first day (Options.WeekStart, Monday by
// default, as ISO 8601) of the week of date; "" for no date.
func (g *groupKeys) week(date string) string {
	if w, ok := g.weeks[date]; ok {
		return w
	}
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return ""
	}
	w := usage.WeekOf(d, g.weekStart).Format(time.DateOnly)
	g.weeks[date] = w
	return w
}

// less orders the groups by their keys in the order given; a session
// sorts by its first message (sessions in the order they started).
func (g *groupKeys) less(a, b string) bool {
	pa, pb := strings.Split(a, "\x00"), strings.Split(b, "\x00")
	for i, k := range g.keys {
		x, y := pa[i], pb[i]
		if x == y {
			continue
		}
		if k == "session" {
			fx, okx := g.sessionFirst[x]
			fy, oky := g.sessionFirst[y]
			if okx != oky {
				return okx // a session without a message comes after those with one
			}
			if fx != fy {
				return fx < fy
			}
		}
		return x < y
	}
	return false
}

// display names a group in a message: its parts joined by commas.
func display(group string) string { return strings.ReplaceAll(group, "\x00", ",") }

// inWindow reports whether a fact stamped ts is in [Since, Until]; with
// no window, every fact is.
func (x *Extractor) inWindow(ts string) bool {
	if x.opts.Since.IsZero() && x.opts.Until.IsZero() {
		return true
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return false
	}
	return (x.opts.Since.IsZero() || !t.Before(x.opts.Since)) && (x.opts.Until.IsZero() || !t.After(x.opts.Until))
}

// windowed wraps emit to drop the facts stamped outside the window
// (usage messages are dropped before they are summed, in take; a files
// --unique summary is of in-window files only, see summarize).
func (x *Extractor) windowed(emit func(any) error) func(any) error {
	if x.opts.Since.IsZero() && x.opts.Until.IsZero() {
		return emit
	}
	return func(v any) error {
		if s, ok := v.(stamped); ok && !x.inWindow(deref(s.stamp())) {
			return nil
		}
		return emit(v)
	}
}

// stamped is a fact with a Base: its entry's timestamp.
type stamped interface{ stamp() *string }

func (b Base) stamp() *string { return b.Timestamp }
