package usage

import (
	"testing"
	"time"
)

// SpendOf puts each message, once, in the periods of its timestamp.
func TestSpendOf(t *testing.T) {
	now := time.Date(2026, 5, 6, 12, 0, 0, 0, time.UTC) // a Wednesday
	ms := func(s string) int64 { tt, _ := time.Parse(time.RFC3339, s); return tt.UnixMilli() }
	msgs := []Priced{
		{Key: 1, TS: ms("2026-04-30T10:00:00Z"), USD: 1, Session: "a"},                // last month
		{Key: 2, TS: ms("2026-05-01T10:00:00Z"), USD: 2, Session: "a"},                // this month, last week
		{Key: 3, TS: ms("2026-05-04T10:00:00Z"), USD: 4, Session: "b"},                // this week (Monday)
		{Key: 4, TS: ms("2026-05-06T09:30:00Z"), USD: 8, Session: "b"},                // today, the block from 09:00
		{Key: 4, TS: ms("2026-05-06T09:30:00Z"), USD: 8, Session: "c", Copied: true},  // a fork's copy: once
		{Key: 5, TS: ms("2026-05-06T11:00:00Z"), USD: 16, Session: "c"},               // today, the block
		{Key: 6, TS: ms("2026-05-06T11:30:00Z"), Unpriced: true, Session: "c"},        // unpriced
		{Key: 7, TS: ms("2026-05-06T11:40:00Z"), USD: 32, Session: "d", Copied: true}, // only a copy: not counted
	}
	got := SpendOf(msgs, SpendOptions{Now: now, Session: "c"})
	want := Spend{Today: 24, Week: 28, Month: 30, Block: 24, Session: 16, Unpriced: 1}
	if got != want {
		t.Errorf("spend %+v, want %+v", got, want)
	}
	sunday := time.Sunday
	if got := SpendOf(msgs, SpendOptions{Now: now, WeekStart: &sunday}); got.Week != 28 || got.Session != 0 {
		t.Errorf("weeks from Sunday: %+v", got)
	}
	// Five hours after the last message no block runs.
	if got := SpendOf(msgs, SpendOptions{Now: now.Add(5 * time.Hour)}); got.Block != 0 || got.Today != 24 {
		t.Errorf("later: %+v", got)
	}
	// In UTC-12 "today" began at 12:00 UTC: nothing yet.
	if got := SpendOf(msgs, SpendOptions{Now: now, Location: time.FixedZone("X", -12*3600)}); got.Today != 0 {
		t.Errorf("UTC-12: %+v", got)
	}
}
