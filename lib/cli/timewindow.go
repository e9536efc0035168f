package cli

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ccpipe/ccpipe/lib/quote"
)

// Window is a --since/--until pair: one parser and one message for every
// command that takes a time window (cc-sessions, cc-entries, cc-extract,
// cc-grep). Register it with Flags.WindowVar, then Resolve it in Run.
type Window struct {
	since, until string
	// Since and Until bound the window (inclusive); zero means open.
	Since, Until time.Time
}

// timeForms is what a --since/--until value may be, said once for the
// flag help and the error.
const timeForms = "RFC 3339, YYYY-MM-DD, YYYYMMDD, a duration ago (90m, 12h, 7d, 2w), today or yesterday"

// WindowVar registers --since and --until; what names what is kept
// ("records", "sessions last active").
func (f *Flags) WindowVar(w *Window, what string) {
	f.fs.StringVar(&w.since, "since", "", "only "+what+" at or after `TIME` ("+timeForms+")")
	f.fs.StringVar(&w.until, "until", "", "only "+what+" at or before `TIME` (a date is the whole day, a time without seconds the whole minute)")
}

// Set reports whether --since or --until was given.
func (w *Window) Set() bool { return w.since != "" || w.until != "" }

// Resolve parses the flags' values: a date or a time without a zone is
// in loc, a duration or a day name counts back from now. A bad value or
// an empty window is a usage error.
func (w *Window) Resolve(now time.Time, loc *time.Location) error {
	var err error
	if w.since != "" {
		if w.Since, err = ParseTime(w.since, now, loc, false); err != nil {
			return Usagef("--since %v", err)
		}
	}
	if w.until != "" {
		if w.Until, err = ParseTime(w.until, now, loc, true); err != nil {
			return Usagef("--until %v", err)
		}
	}
	if !w.Since.IsZero() && !w.Until.IsZero() && w.Until.Before(w.Since) {
		return Usagef("--until is before --since")
	}
	return nil
}

// Contains reports whether t is in the window.
func (w *Window) Contains(t time.Time) bool {
	return (w.Since.IsZero() || !t.Before(w.Since)) && (w.Until.IsZero() || !t.After(w.Until))
}

// Overlaps reports whether [from, to] meets the window (a session active
// during it); a zero from or to is open on that side.
func (w *Window) Overlaps(from, to time.Time) bool {
	if to.IsZero() {
		to = from
	}
	if from.IsZero() {
		from = to
	}
	return (w.Since.IsZero() || !to.Before(w.Since)) && (w.Until.IsZero() || !from.After(w.Until))
}

// agoUnit is a duration in days or weeks, which Go's durations lack.
var agoUnit = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{1,6})([dw])$`) })

// ParseTime reads a --since or --until value. A date covers its whole day
// and a time given to the minute or second the whole of it when upper is
// set (--until 2026-11-30 keeps that day); today and yesterday are days
// in loc. A trailing " ago" is allowed after a duration.
func ParseTime(s string, now time.Time, loc *time.Location, upper bool) (time.Time, error) {
	if loc == nil {
		loc = time.UTC
	}
	v := strings.TrimSpace(s)
	day := func(t time.Time) time.Time {
		y, m, d := t.In(loc).Date()
		start := time.Date(y, m, d, 0, 0, 0, 0, loc)
		if upper {
			return start.AddDate(0, 0, 1).Add(-time.Nanosecond)
		}
		return start
	}
	switch strings.ToLower(v) {
	case "today":
		return day(now), nil
	case "yesterday":
		return day(now.In(loc).AddDate(0, 0, -1)), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	for _, l := range []struct {
		layout string
		span   time.Duration
	}{
		{"2006-01-02T15:04:05", time.Second},
		{"2006-01-02T15:04", time.Minute}, {"2006-01-02", 24 * time.Hour}, {"20060102", 24 * time.Hour},
	} {
		t, err := time.ParseInLocation(l.layout, v, loc)
		if err != nil {
			continue
		}
		if upper && l.span == 24*time.Hour {
			return day(t), nil // a calendar day, 23 or 25 hours across a DST change
		}
		if upper && l.span > 0 && t.Nanosecond() == 0 && !strings.Contains(v, ".") {
			t = t.Add(l.span - time.Nanosecond)
		}
		return t, nil
	}
	ago := strings.TrimSpace(strings.TrimSuffix(v, "ago"))
	if m := agoUnit().FindStringSubmatch(ago); m != nil {
		n, _ := strconv.Atoi(m[1])
		if m[2] == "w" {
			n *= 7
		}
		return now.AddDate(0, 0, -n), nil
	}
	if d, err := time.ParseDuration(ago); err == nil && d >= 0 && ago != "" {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%s: not a time (want %s)", quote.Q(s), timeForms)
}
