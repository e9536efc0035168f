package cli

import (
	"strings"
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip(err)
	}
	now := time.Date(2026, 3, 29, 12, 0, 0, 0, berlin) // the day Berlin moves to summer time: 23 hours
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tt := range []struct {
		in    string
		upper bool
		want  time.Time
	}{
		{"2026-03-01T10:00:00Z", false, at("2026-03-01T10:00:00Z")},
		{"2026-03-01T10:00:00+02:00", true, at("2026-03-01T08:00:00Z")},
		{"2026-03-01T10:00:00.5Z", true, at("2026-03-01T10:00:00.5Z")},
		{"2026-03-01T10:00", false, at("2026-03-01T10:00:00+01:00")},
		{"2026-03-01T10:00", true, at("2026-03-01T10:00:59.999999999+01:00")},
		{"2026-03-01T10:00:05", true, at("2026-03-01T10:00:05.999999999+01:00")},
		{"2026-03-01", false, at("2026-03-01T00:00:00+01:00")},
		{"2026-03-01", true, at("2026-03-01T23:59:59.999999999+01:00")},
		{"20260301", false, at("2026-03-01T00:00:00+01:00")},
		{"20260329", true, at("2026-03-29T23:59:59.999999999+02:00")}, // a 23-hour day ends at its midnight
		{"today", false, at("2026-03-29T00:00:00+01:00")},
		{"today", true, at("2026-03-29T23:59:59.999999999+02:00")},
		{"Yesterday", false, at("2026-03-28T00:00:00+01:00")},
		{"yesterday", true, at("2026-03-28T23:59:59.999999999+01:00")},
		{"12h", false, now.Add(-12 * time.Hour)},
		{"90m", true, now.Add(-90 * time.Minute)},
		{"7d", false, now.AddDate(0, 0, -7)},
		{"2w", false, now.AddDate(0, 0, -14)},
		{"7d ago", false, now.AddDate(0, 0, -7)},
		{"1h30m ago", false, now.Add(-90 * time.Minute)},
	} {
		got, err := ParseTime(tt.in, now, berlin, tt.upper)
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("ParseTime(%q, upper %v) = %v, %v; want %v", tt.in, tt.upper, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "ago", "-5m", "last week", "2026-13-01", "2026/03/01", "7x", "1e3d", "99999999d"} {
		if _, err := ParseTime(bad, now, berlin, false); err == nil || !strings.Contains(err.Error(), "not a time (want RFC 3339") {
			t.Errorf("ParseTime(%q): %v, want the one message", bad, err)
		}
	}
}

func TestWindow(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	var w Window
	w.since, w.until = "2026-11-30", "yesterday"
	if err := w.Resolve(now, time.UTC); err == nil || err.Error() != "--until is before --since" {
		t.Errorf("empty window: %v", err)
	}
	w = Window{since: "2026-11-29", until: "2026-11-29"}
	if err := w.Resolve(now, time.UTC); err != nil {
		t.Fatal(err)
	}
	day := func(h int) time.Time { return time.Date(2026, 11, 29, h, 0, 0, 0, time.UTC) }
	switch {
	case !w.Set(), !w.Contains(day(0)), !w.Contains(day(23)), w.Contains(day(24)), w.Contains(day(-1)):
		t.Errorf("Contains: window %v..%v", w.Since, w.Until)
	case !w.Overlaps(day(-5), day(1)), !w.Overlaps(day(23), day(30)), w.Overlaps(day(-5), day(-1)), !w.Overlaps(time.Time{}, day(3)):
		t.Errorf("Overlaps: window %v..%v", w.Since, w.Until)
	}
	if err := (&Window{since: "soon"}).Resolve(now, nil); err == nil || !strings.HasPrefix(err.Error(), `--since "soon": not a time`) {
		t.Errorf("bad --since: %v", err)
	}
}

// FuzzParseTime feeds ParseTime what a user may type: it never panics,
// and a lower bound is never after the upper bound of the same value.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2026-11-30", "20261130", "7d", "12h", "today", "yesterday", "2026-11-30T10:00", "2026-11-30T10:00:00.123+05:30", "3w ago"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		lo, err1 := ParseTime(s, now, time.UTC, false)
		hi, err2 := ParseTime(s, now, time.UTC, true)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("%q: lower %v, upper %v", s, err1, err2)
		}
		if err1 == nil && hi.Before(lo) {
			t.Fatalf("%q: upper %v before lower %v", s, hi, lo)
		}
	})
}

func TestZoneFlag(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip(err)
	}
	env := func(tz string) System {
		return System{Getenv: func(k string) string { return map[string]string{"TZ": tz}[k] }}
	}
	for _, tt := range []struct {
		name string
		sys  System
		tz   string
		want string
	}{
		{"the System's zone", System{Zone: tokyo}, "", "Asia/Tokyo"},
		{"TZ when the System has none", env("Asia/Tokyo"), "", "Asia/Tokyo"},
		{"a bad TZ is UTC, as time.Local", env("Nowhere/Nothing"), "", "UTC"},
		{"nothing: UTC", System{}, "", "UTC"},
		{"--tz wins", System{Zone: tokyo}, "Europe/Berlin", "Europe/Berlin"},
		{"--tz Local is the System's", System{Zone: tokyo}, "Local", "Asia/Tokyo"},
	} {
		loc, err := ZoneFlag(tt.sys, tt.tz)
		if err != nil || loc.String() != tt.want {
			t.Errorf("%s: %v, %v; want %s", tt.name, loc, err, tt.want)
		}
	}
	if _, err := ZoneFlag(System{}, "Mars/Olympus"); err == nil || !strings.Contains(err.Error(), `--tz "Mars/Olympus": not a time zone`) {
		t.Errorf("bad --tz: %v", err)
	}
}
