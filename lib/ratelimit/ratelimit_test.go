package ratelimit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/usage"
)

func unix(s string) int64 {
	t, _ := time.Parse(time.RFC3339, s)
	return t.Unix()
}

func money(v float64) *float64 { return &v }

// TestWindows: a window goes on while resets_at drifts a little and the
// use grows; a drop in use before resets_at is an early reset (and starts
// the next window); a sample at or past resets_at starts a new one; the
// spend is the month spend's growth over the window, per percent used.
func TestWindows(t *testing.T) {
	five := func(tm string, used float64, reset string, month float64) Sample {
		return Sample{Time: tm, FiveHour: &Limit{UsedPercentage: used, ResetsAt: unix(reset)}, MonthUSD: money(month)}
	}
	samples := []Sample{
		five("2026-05-01T10:00:00Z", 10, "2026-05-01T14:00:00Z", 100),
		five("2026-05-01T11:00:00Z", 30, "2026-05-01T14:00:30Z", 104), // drift: the same window
		five("2026-05-01T12:00:00Z", 2, "2026-05-01T17:00:00Z", 105),  // a drop at 12:00: reset two hours early
		five("2026-05-01T17:30:00Z", 40, "2026-05-01T22:30:00Z", 110), // past 17:00: a new window
		{Time: "2026-05-01T18:00:00Z", SevenDay: &Limit{UsedPercentage: 5, ResetsAt: unix("2026-05-08T00:00:00Z")}},
	}
	got := Windows(samples, "five_hour")
	if len(got) != 3 {
		t.Fatalf("%d windows, want 3: %+v", len(got), got)
	}
	w := got[0]
	if w.FirstSeen != "2026-05-01T10:00:00Z" || w.LastSeen != "2026-05-01T11:00:00Z" || w.MaxUsedPercent != 30 || w.FirstUsed != 10 {
		t.Errorf("first window: %+v", w)
	}
	if w.ResetAtObserved == nil || *w.ResetAtObserved != "2026-05-01T12:00:00Z" || !w.Early {
		t.Errorf("first window's reset: %v early %v, want seen at 12:00, early", w.ResetAtObserved, w.Early)
	}
	if w.SpendUSD == nil || *w.SpendUSD != 4 || w.USDPerPercent == nil || *w.USDPerPercent != 0.2 {
		t.Errorf("first window's spend: %v, per percent %v; want 4 and 0.2", w.SpendUSD, w.USDPerPercent)
	}
	if got[1].Early || got[1].ResetAtObserved == nil || *got[1].ResetAtObserved != "2026-05-01T17:30:00Z" {
		t.Errorf("second window ended on time: %+v", got[1])
	}
	if got[2].ResetAtObserved != nil {
		t.Errorf("the last window is still open: %+v", got[2])
	}
	if seven := Windows(samples, "seven_day"); len(seven) != 1 || seven[0].SpendUSD != nil {
		t.Errorf("seven_day: %+v (no month spend: spend unknown)", seven)
	}
}

// TestKeep: a sample is appended unless its windows are the last line's;
// Read gives the samples back and counts a line that is not one.
func TestKeep(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	raw := json.RawMessage(`{"five_hour":{"used_percentage":12,"resets_at":1777777777},"seven_day":{"used_percentage":3,"resets_at":"2026-05-08T00:00:00Z"}}`)
	s, ok := SampleOf(raw)
	if !ok || s.FiveHour.ResetsAt != 1777777777 || s.SevenDay.ResetsAt != unix("2026-05-08T00:00:00Z") {
		t.Fatalf("SampleOf: %+v %v", s, ok)
	}
	if _, ok := SampleOf(json.RawMessage(`{"five_hour":{"resets_at":1}}`)); ok {
		t.Error("a window without used_percentage made a sample")
	}
	for i, tm := range []string{"2026-05-01T10:00:00Z", "2026-05-01T10:05:00Z"} {
		s.Time = tm
		if err := Keep(dir, s); err != nil {
			t.Fatalf("Keep %d: %v", i, err)
		}
	}
	s.Time, s.FiveHour.UsedPercentage = "2026-05-01T10:10:00Z", 13
	if err := Keep(dir, s); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, LedgerName)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not json\n")
	f.Close()
	got, bad, err := Read(path)
	if err != nil || bad != 1 || len(got) != 2 || got[0].Time != "2026-05-01T10:00:00Z" || got[1].FiveHour.UsedPercentage != 13 {
		t.Errorf("Read: %+v, %d bad, %v; want the 10:00 and 10:10 samples, 1 bad", got, bad, err)
	}
}

func TestFiveHourOf(t *testing.T) {
	for _, tt := range []struct {
		name, raw string
		used      *float64
		resets    time.Time
		ok        bool
	}{
		{"unix seconds", `{"five_hour":{"used_percentage":42,"resets_at":1777777777}}`, money(42), time.Unix(1777777777, 0), true},
		{"RFC 3339 to the nanosecond", `{"five_hour":{"used_percentage":1,"resets_at":"2026-05-01T15:00:00.5Z"}}`, money(1),
			time.Date(2026, 5, 1, 15, 0, 0, 5e8, time.UTC), true},
		{"no used_percentage: still the reset", `{"five_hour":{"resets_at":1777777777}}`, nil, time.Unix(1777777777, 0), true},
		{"unreadable resets_at", `{"five_hour":{"used_percentage":5,"resets_at":"soon"}}`, money(5), time.Time{}, true},
		{"seven_day only", `{"seven_day":{"used_percentage":3}}`, nil, time.Time{}, false},
		{"null", `null`, nil, time.Time{}, false},
		{"empty", ``, nil, time.Time{}, false},
		{"not an object", `[1]`, nil, time.Time{}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			used, resets, ok := FiveHourOf(json.RawMessage(tt.raw))
			if ok != tt.ok || !resets.Equal(tt.resets) || (used == nil) != (tt.used == nil) || used != nil && *used != *tt.used {
				t.Errorf("FiveHourOf = %v, %v, %v; want %v, %v, %v", used, resets, ok, tt.used, tt.resets, tt.ok)
			}
		})
	}
}

func TestKeepPayload(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	if err := KeepPayload(dir, json.RawMessage(`null`), now, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, LedgerName)); !os.IsNotExist(err) {
		t.Fatalf("a payload without rate_limits made a ledger: %v", err)
	}
	raw := json.RawMessage(`{"five_hour":{"used_percentage":12,"resets_at":1777777777}}`)
	if err := KeepPayload(dir, raw, now, money(0.42), &usage.Spend{Today: 2, Month: 9, Block: 1}); err != nil {
		t.Fatal(err)
	}
	got, bad, err := Read(filepath.Join(dir, LedgerName))
	if err != nil || bad != 0 || len(got) != 1 {
		t.Fatalf("Read: %+v, %d bad, %v", got, bad, err)
	}
	s := got[0]
	if s.Time != "2026-05-01T10:00:00.000Z" || s.FiveHour.UsedPercentage != 12 || *s.SessionCostUSD != 0.42 ||
		*s.BlockUSD != 1 || *s.DayUSD != 2 || *s.MonthUSD != 9 {
		t.Errorf("kept %+v", s)
	}
}

// TestSampleIsFiveHour: the ledger's sample and the status line's
// five-hour window are one reading (WindowOf): the same window, its reset
// the same second; a malformed seven_day does not cost the five-hour
// window of either.
func TestSampleIsFiveHour(t *testing.T) {
	for _, raw := range []string{
		`{"five_hour":{"used_percentage":42,"resets_at":1777777777}}`,
		`{"five_hour":{"used_percentage":1,"resets_at":"2026-05-01T15:00:00.5Z"},"seven_day":{"used_percentage":3,"resets_at":1}}`,
		`{"five_hour":{"used_percentage":7,"resets_at":1777777777},"seven_day":5}`,
		`{"five_hour":{"used_percentage":9}}`,
	} {
		s, sok := SampleOf(json.RawMessage(raw))
		used, resets, fok := FiveHourOf(json.RawMessage(raw))
		if !sok || !fok || s.FiveHour == nil || used == nil || s.FiveHour.UsedPercentage != *used {
			t.Errorf("%s: sample %+v %v, five-hour %v %v", raw, s.FiveHour, sok, used, fok)
			continue
		}
		want := int64(0)
		if !resets.IsZero() {
			want = resets.Unix()
		}
		if s.FiveHour.ResetsAt != want {
			t.Errorf("%s: sample resets %d, five-hour %d", raw, s.FiveHour.ResetsAt, want)
		}
	}
}
