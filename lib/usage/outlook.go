package usage

import (
	"math"
	"time"

	"github.com/ccpipe/ccpipe/lib/numfmt"
)

// BlockForecast is the running block's burn rate and projection
// (ForecastOf), and the time until a budget is reached at that pace: the
// status line's "forecast" record.
type BlockForecast struct {
	TokensPerMinute float64  `json:"tokens_per_minute"`
	USDPerHour      float64  `json:"usd_per_hour"`
	ProjectedTokens int64    `json:"projected_tokens"`
	ProjectedUSD    float64  `json:"projected_usd"`
	MinutesToBudget *float64 `json:"minutes_to_budget"`
	BudgetPeriod    *string  `json:"budget_period"`
}

// BudgetReport is the spend against the budgets: the worst state, the
// line's text for it, and every period with a limit.
type BudgetReport struct {
	State   string        `json:"state"`
	Text    string        `json:"text"`
	Periods []BudgetState `json:"periods"`
}

// Outlook is the recent block's forecast at now (nil without a rate) and
// the recent spend against budgets (nil without budgets). The report's
// text names the worst period ("warn day $4.10 of $5.00, over in 35m",
// "OVER day $5.12 of $5.00"; a + when the read was partial); a period's
// "over in" is the time at the block's pace, left out when it is never
// reached at that pace, already over, or, for the block, not before the
// block ends.
func (r *Recent) Outlook(now time.Time, budgets *Budgets) (*BlockForecast, *BudgetReport) {
	var fc *BlockForecast
	f, ok := r.Block.Forecast(now)
	if ok {
		fc = &BlockForecast{TokensPerMinute: f.TokensPerMinute, USDPerHour: f.USDPerHour,
			ProjectedTokens: f.ProjectedTokens, ProjectedUSD: f.ProjectedUSD}
	}
	if budgets == nil {
		return fc, nil
	}
	b := &BudgetReport{Periods: budgets.Check(r.Spend)}
	b.State = Worst(b.Periods)
	var until map[string]time.Duration
	if ok {
		until = map[string]time.Duration{}
		for _, st := range b.Periods {
			d, reached := f.Until(st.Spent, st.Limit)
			if !reached || st.State == BudgetOver || st.Period == "block" && d.Minutes() > f.RemainingMinutes {
				continue // never at this pace, already, or not before the block ends
			}
			until[st.Period] = d
			if m := math.Floor(d.Minutes()); fc.MinutesToBudget == nil || m < *fc.MinutesToBudget {
				p := st.Period
				fc.MinutesToBudget, fc.BudgetPeriod = &m, &p
			}
		}
	}
	for _, st := range b.Periods {
		if st.State != b.State {
			continue
		}
		b.Text = st.String()
		if r.Partial {
			b.Text += "+"
		}
		if st.State == BudgetOver {
			b.Text = "OVER " + b.Text
			break
		}
		if st.State == BudgetWarn {
			b.Text = "warn " + b.Text
			if d, ok := until[st.Period]; ok {
				b.Text += ", over in " + numfmt.Minutes(int64(math.Floor(d.Minutes())))
			}
		}
		break
	}
	return fc, b
}

// ContextUse is how full a session's context window is: its last
// main-thread prompt's tokens (nil when Claude Code gave the percentage),
// the window, and the percentage used, one decimal.
type ContextUse struct {
	Tokens  *int64
	Window  *int64
	Percent *float64
}

// ContextUse is the context use the status line shows: Claude Code's
// usedPercent (and windowSize) when it gives them; else the session's
// last prompt (r.Context) over windowSize, or over ContextWindow of the
// prompt and the models when Claude Code gives no size. All nil without
// either.
func (r *Recent) ContextUse(model string, usedPercent, windowSize *float64) ContextUse {
	var c ContextUse
	if usedPercent != nil {
		c.Percent = usedPercent
		if windowSize != nil {
			n := int64(*windowSize)
			c.Window = &n
		}
		return c
	}
	if r.Context == 0 {
		return c
	}
	window := ContextWindow(r.Context, r.ContextModel, model)
	if windowSize != nil && *windowSize > 0 {
		window = int64(*windowSize)
	}
	tokens := r.Context
	pct := math.Round(float64(tokens)*1000/float64(window)) / 10
	c.Tokens, c.Window, c.Percent = &tokens, &window, &pct
	return c
}
