package usage

import (
	"fmt"
	"time"
)

// ccusage's 5-hour billing windows: a block starts at the hour (UTC) of its
// first message and lasts 5 hours; a message past the block's end, or more
// than 5 hours after the previous message, starts the next block.

// BlockDuration is the length of a billing window.
const BlockDuration = 5 * time.Hour

// BlockTimeLayout spells a block's bounds as Claude Code spells its
// timestamps (UTC, milliseconds), so that cc-extract's block_start and
// cc-statusline's are the same string.
const BlockTimeLayout = "2006-01-02T15:04:05.000Z"

// BlockSpan is one billing window over sorted times: times[From:To]
// fall in the block that starts at Start.
type BlockSpan struct {
	Start    time.Time
	From, To int
}

// BlockSpans cuts sorted times into ccusage's 5-hour blocks.
func BlockSpans(times []time.Time) []BlockSpan {
	var out []BlockSpan
	for i := 0; i < len(times); {
		start := times[i].UTC().Truncate(time.Hour)
		j := i + 1
		for j < len(times) && times[j].Sub(start) <= BlockDuration && times[j].Sub(times[j-1]) <= BlockDuration {
			j++
		}
		out = append(out, BlockSpan{Start: start, From: i, To: j})
		i = j
	}
	return out
}

// Active is the one rule of which block is still running: one that
// starts at start, whose messages run from first to last, is active at
// now while it has not ended, its latest message is less than 5 hours
// old, and its first is not after now: a block of records from the
// future (a clock set back) never runs.
func Active(start, first, last, now time.Time) bool {
	return !first.After(now) && now.Sub(last) < BlockDuration && now.Before(start.Add(BlockDuration))
}

// Current is the one rule of which block is the current one at now, of
// spans cut from sorted times (BlockSpans): the last one whose first time
// is not after now, so that a record from the future never defines it
// (-1 when every time is after now); it runs when Active says so, and no
// other block can. future counts the times after now (FutureNote).
func Current(spans []BlockSpan, times []time.Time, now time.Time) (i, future int) {
	i = -1
	for j, sp := range spans {
		if !times[sp.From].After(now) {
			i = j
		}
	}
	for k := len(times) - 1; k >= 0 && times[k].After(now); k-- {
		future++
	}
	return i, future
}

// FutureNote is the warning of n messages dated after now.
func FutureNote(n int) string {
	what := "1 message from the future (dated after now: was the clock set back?) is"
	if n != 1 {
		what = fmt.Sprintf("%d messages from the future (dated after now: was the clock set back?) are", n)
	}
	return what + " in no running block"
}

// Forecast is the running block's pace and where it ends at that pace,
// as ccusage's live blocks show it: the rate is over the block's messages,
// from its first to its last.
type Forecast struct {
	TokensPerMinute float64
	USDPerHour      float64
	// ProjectedTokens and ProjectedUSD are the block's totals at its end
	// at this pace; RemainingMinutes is the time to its end.
	ProjectedTokens  int64
	ProjectedUSD     float64
	RemainingMinutes float64
}

// ForecastOf is the forecast of a block ending at end whose messages,
// from first to last, total tokens and usd; false when they give no rate
// (one message, or all at one instant). The one forecast rule: cc-extract
// usage --sum block and cc-statusline.
func ForecastOf(first, last, end, now time.Time, messages int, tokens int64, usd float64) (Forecast, bool) {
	minutes := last.Sub(first).Minutes()
	if messages < 2 || minutes <= 0 {
		return Forecast{}, false
	}
	f := Forecast{TokensPerMinute: float64(tokens) / minutes, RemainingMinutes: max(0, end.Sub(now).Minutes())}
	f.ProjectedTokens = tokens + int64(f.TokensPerMinute*f.RemainingMinutes+0.5)
	f.USDPerHour = usd / minutes * 60
	f.ProjectedUSD = usd + f.USDPerHour/60*f.RemainingMinutes
	return f, true
}

// Until is how long, at the forecast's dollars per hour, spent takes to
// reach limit: 0 when it has; false when it never does at this pace.
func (f Forecast) Until(spent, limit float64) (time.Duration, bool) {
	if spent >= limit {
		return 0, true
	}
	if f.USDPerHour <= 0 {
		return 0, false
	}
	return time.Duration((limit - spent) / f.USDPerHour * float64(time.Hour)), true
}
