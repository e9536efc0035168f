package usage

import (
	"testing"
	"time"
)

func TestOutlook(t *testing.T) {
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	now := start.Add(time.Hour) // the block ends in 4h
	r := Recent{Block: Block{Has: true, Start: start.UnixMilli(), First: start.UnixMilli(),
		Last: now.UnixMilli(), USD: 2, Tokens: 6000, Messages: 2}} // $2/h, 100 tokens/min
	if fc, b := r.Outlook(now, nil); fc == nil || b != nil || fc.USDPerHour != 2 || fc.TokensPerMinute != 100 ||
		fc.ProjectedUSD != 10 || fc.ProjectedTokens != 30000 || fc.MinutesToBudget != nil {
		t.Fatalf("no budgets: forecast %+v, budget %+v", fc, b)
	}
	budgets := &Budgets{Day: 5, Block: 10, Warn: 0.8}
	for _, tt := range []struct {
		name      string
		day       float64
		partial   bool
		state     string
		text      string
		toBudget  float64
		budgetFor string
	}{
		{"warn, over in", 4.5, false, BudgetWarn, "warn day $4.50 of $5.00, over in 15m", 15, "day"},
		{"partial", 4.5, true, BudgetWarn, "warn day $4.50 of $5.00+, over in 15m", 15, "day"},
		{"over: the block's budget is next", 5.12, false, BudgetOver, "OVER day $5.12 of $5.00", 240, "block"},
		{"ok", 1, false, BudgetOK, "day $1.00 of $5.00", 120, "day"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := r
			r.Spend, r.Partial = Spend{Today: tt.day, Block: 2}, tt.partial
			fc, b := r.Outlook(now, budgets)
			if b == nil || b.State != tt.state || b.Text != tt.text || len(b.Periods) != 2 {
				t.Fatalf("budget %+v, want %s %q", b, tt.state, tt.text)
			}
			if fc == nil || fc.MinutesToBudget == nil || *fc.MinutesToBudget != tt.toBudget || *fc.BudgetPeriod != tt.budgetFor {
				t.Fatalf("forecast %+v, want %v minutes to %s", fc, tt.toBudget, tt.budgetFor)
			}
		})
	}
	// Not running: no forecast, the budgets still checked.
	if fc, b := r.Outlook(start.Add(6*time.Hour), budgets); fc != nil || b == nil || b.State != BudgetOK {
		t.Errorf("after the block: forecast %+v, budget %+v", fc, b)
	}
}

func TestContextUse(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		name        string
		ctx         int64
		model       string
		used, size  *float64
		tokens, win int64 // 0: nil
		pct         float64
		none        bool
	}{
		{name: "Claude Code's percentage", ctx: 50_000, used: f(12), size: f(200_000), win: 200_000, pct: 12},
		{name: "its percentage, no size", used: f(12), pct: 12},
		{name: "own prompt, 200k", ctx: 50_000, tokens: 50_000, win: 200_000, pct: 25},
		{name: "own prompt, [1m] model", ctx: 50_000, model: "claude-opus-4-6[1m]", tokens: 50_000, win: 1_000_000, pct: 5},
		{name: "own prompt over 200k", ctx: 300_000, tokens: 300_000, win: 1_000_000, pct: 30},
		{name: "payload's size", ctx: 1234, size: f(100_000), tokens: 1234, win: 100_000, pct: 1.2},
		{name: "a zero size is no size", ctx: 50_000, size: f(0), tokens: 50_000, win: 200_000, pct: 25},
		{name: "nothing", none: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Recent{Context: tt.ctx}
			c := r.ContextUse(tt.model, tt.used, tt.size)
			if tt.none {
				if c.Tokens != nil || c.Window != nil || c.Percent != nil {
					t.Fatalf("got %+v, want none", c)
				}
				return
			}
			if c.Percent == nil || *c.Percent != tt.pct {
				t.Errorf("percent %v, want %v", c.Percent, tt.pct)
			}
			if (c.Tokens == nil) != (tt.tokens == 0) || c.Tokens != nil && *c.Tokens != tt.tokens {
				t.Errorf("tokens %v, want %d", c.Tokens, tt.tokens)
			}
			if (c.Window == nil) != (tt.win == 0) || c.Window != nil && *c.Window != tt.win {
				t.Errorf("window %v, want %d", c.Window, tt.win)
			}
		})
	}
}
