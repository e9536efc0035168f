package usage

import "time"

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
// starts at start, whose latest message is at last, is active at now
// while it has not ended and that message is less than 5 hours old.
func Active(start, last, now time.Time) bool {
	return now.Sub(last) < BlockDuration && now.Before(start.Add(BlockDuration))
}
