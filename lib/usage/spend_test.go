package usage

import (
	"os"
	"path/filepath"
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

// ReadRecent's spend reaches back to the month's start (the ledgers keep
// SpendWindow, not a day), and the warm summary, the ledgers and no
// cache at all give the same figures; a new day sums again.
func TestRecentSpend(t *testing.T) {
	root, tr := session(t)
	now := time.Date(2026, 5, 21, 12, 0, 0, 0, time.UTC)
	// $2 per million input tokens.
	write(t, tr, assistant("m1", "2026-05-02T10:00:00.000Z", "claude-sonnet-5-5", 1000000)+
		assistant("m2", "2026-05-19T10:00:00.000Z", "claude-sonnet-5-5", 500000)+
		assistant("m3", "2026-05-21T11:00:00.000Z", "claude-sonnet-5-5", 250000))
	if err := os.Chtimes(tr, now, now); err != nil {
		t.Fatal(err)
	}
	o := RecentOptions{Transcript: tr, CacheDir: filepath.Join(root, "cache"), Now: now, Recheck: time.Hour,
		Deadline: time.Now().Add(time.Minute), Session: "s"}
	want := Spend{Today: 0.5, Week: 1.5, Month: 3.5, Block: 0.5, Session: 3.5}
	for i, name := range []string{"cold", "warm"} {
		if got := ReadRecent(o).Spend; got != want {
			t.Errorf("%s (%d): %+v, want %+v", name, i, got, want)
		}
	}
	o.CacheDir = ""
	if got := ReadRecent(o).Spend; got != want {
		t.Errorf("no cache: %+v, want %+v", got, want)
	}
	o.CacheDir = filepath.Join(root, "cache")
	o.Now = now.Add(13 * time.Hour) // the next day: no block, nothing today
	if got := ReadRecent(o).Spend; got != (Spend{Week: 1.5, Month: 3.5, Session: 3.5}) {
		t.Errorf("next day: %+v", got)
	}
}

// Budgets: the budgets section of a YAML file, states per period.
func TestBudgets(t *testing.T) {
	b, found, err := ParseBudgets([]byte("rules: []\nbudgets:\n  day: 5\n  block: 2\n"))
	if err != nil || !found || b != (Budgets{Day: 5, Block: 2, Warn: DefaultWarn}) {
		t.Fatalf("parse: %+v %v %v", b, found, err)
	}
	if _, found, err := ParseBudgets([]byte("rules: []\n")); found || err != nil {
		t.Errorf("no section: found %v, %v", found, err)
	}
	for _, bad := range []string{"budgets: 3", "budgets: {dya: 1}", "budgets: {day: -1}", "budgets: {warn: 1.5}", "budgets: {day: x}"} {
		if _, _, err := ParseBudgets([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	st := b.Check(Spend{Today: 4, Block: 2})
	want := []BudgetState{{Period: "day", Spent: 4, Limit: 5, State: BudgetWarn}, {Period: "block", Spent: 2, Limit: 2, State: BudgetOver}}
	if len(st) != 2 || st[0] != want[0] || st[1] != want[1] || Worst(st) != BudgetOver {
		t.Errorf("check: %+v", st)
	}
	if w := Worst(b.Check(Spend{Today: 3.9})); w != BudgetOK {
		t.Errorf("under the warn fraction: %s", w)
	}
	if s := want[0].String(); s != "day $4.00 of $5.00" {
		t.Errorf("String: %q", s)
	}
}

// ForecastOf: the rate over the block's messages from first to last,
// projected to the block's end; Until at that pace. The reference figures
// are worked by hand from the same messages.
func TestForecastOf(t *testing.T) {
	at := func(h, m int) time.Time { return time.Date(2026, 5, 6, h, m, 0, 0, time.UTC) }
	// 3 messages, 10:00 to 10:30, 1,500 tokens, $3: 50 tokens a minute,
	// $6 an hour; 240 minutes to 15:00 from 11:00.
	f, ok := ForecastOf(at(10, 0), at(10, 30), at(15, 0), at(11, 0), 3, 1500, 3)
	want := Forecast{TokensPerMinute: 50, USDPerHour: 6, ProjectedTokens: 1500 + 50*240, ProjectedUSD: 3 + 6*4, RemainingMinutes: 240}
	if !ok || f != want {
		t.Errorf("forecast %+v, want %+v", f, want)
	}
	if d, ok := f.Until(3, 5); !ok || d != 20*time.Minute {
		t.Errorf("until $5 from $3 at $6/h: %v %v, want 20m", d, ok)
	}
	if d, ok := f.Until(5, 5); !ok || d != 0 {
		t.Errorf("until a reached limit: %v %v", d, ok)
	}
	if _, ok := ForecastOf(at(10, 0), at(10, 0), at(15, 0), at(11, 0), 1, 100, 1); ok {
		t.Error("one message gives a rate")
	}
	// The running block of messages read: the same forecast from Block.
	ms := func(tm time.Time) int64 { return tm.UnixMilli() }
	b := CurrentBlock([]Priced{{Key: 1, TS: ms(at(10, 0)), USD: 1, Tokens: 500}, {Key: 2, TS: ms(at(10, 15)), USD: 1, Tokens: 500},
		{Key: 3, TS: ms(at(10, 30)), USD: 1, Tokens: 500}}, at(11, 0))
	if got, ok := b.Forecast(at(11, 0)); !ok || got != want {
		t.Errorf("Block.Forecast %+v, want %+v", got, want)
	}
}
