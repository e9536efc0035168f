package usage

import (
	"encoding/json"
	"slices"
	"sort"
	"time"

	"github.com/ccpipe/ccpipe/lib/pricing"
)

// --sum block cuts the messages into ccusage's 5-hour billing windows: a
// block starts at the hour (UTC) of its first message and lasts 5 hours;
// a message past the block's end, or more than 5 hours after the previous
// message, starts the next block.

// BlockSum is a usage --sum block fact.
type BlockSum struct {
	BlockStart string `json:"block_start"`
	BlockEnd   string `json:"block_end"`
	// ActualEnd is the timestamp of the block's last message.
	ActualEnd string `json:"actual_end"`
	// Active: the block has not ended and its last message is less than
	// 5 hours old.
	Active                   bool            `json:"active"`
	InputTokens              int64           `json:"input_tokens"`
	OutputTokens             int64           `json:"output_tokens"`
	CacheReadInputTokens     int64           `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64           `json:"cache_creation_input_tokens"`
	TotalTokens              int64           `json:"total_tokens"`
	Messages                 int64           `json:"messages"`
	Models                   []string        `json:"models"`
	CostUSD                  json.RawMessage `json:"cost_usd,omitempty"`
	UnpricedModels           *[]string       `json:"unpriced_models,omitempty"`
	AssumedModels            *[]string       `json:"assumed_models,omitempty"`
	UnpricedMessages         *int64          `json:"unpriced_messages,omitempty"`
	// BurnRate and Projection are set on the active block only (and null
	// when it has a single message, which gives no rate).
	BurnRate   *BurnRate   `json:"burn_rate,omitempty"`
	Projection *Projection `json:"projection,omitempty"`
}

// BurnRate is the active block's pace, from its first message to its last.
type BurnRate struct {
	TokensPerMinute float64  `json:"tokens_per_minute"`
	CostPerHour     *float64 `json:"cost_per_hour,omitempty"`
}

// Projection is where the active block ends at its current pace.
type Projection struct {
	TotalTokens      int64    `json:"total_tokens"`
	CostUSD          *float64 `json:"cost_usd,omitempty"`
	RemainingMinutes int64    `json:"remaining_minutes"`
}

// blockMsg is what a block needs of a message, priced as it is read so
// that the raw usage is not held until the end.
type blockMsg struct {
	t     time.Time
	u     Tokens
	model string
	// With --cost: the charge, or unpriced with the model it was
	// requested as; assumed lists the models priced as the default.
	usd       float64
	unpriced  bool
	costModel string
	assumed   []string
}

// blockTime reads a message's timestamp for --sum block.
func blockTime(ts string) (time.Time, error) { return time.Parse(time.RFC3339Nano, ts) }

// SumNamesIDs says whether a --sum names the message's ids in a warning
// (a negative token count, a timestamp --sum block cannot read): the
// --sum cache keeps them only then.
func SumNamesIDs(r *Message) bool {
	if r.Tokens.InputTokens < 0 || r.Tokens.OutputTokens < 0 || r.Tokens.CacheReadInputTokens < 0 || r.Tokens.CacheCreationInputTokens < 0 {
		return true
	}
	_, err := blockTime(r.Timestamp)
	return err != nil
}

func (u *Summer) addBlockMsg(r *Message) {
	t, err := blockTime(r.Timestamp)
	if err != nil {
		u.badTime(r, "left out of --sum block")
		return
	}
	m := blockMsg{t: t, u: r.Tokens, model: r.Model}
	if u.o.Prices != nil {
		ch, model, err := r.Price(u.o.Prices)
		m.costModel = model
		if err != nil {
			m.unpriced = true
		} else {
			// A message with an advisor part sums its parts first (blocks
			// are not compared with a Claude Code total).
			for _, p := range ch.Parts {
				m.usd += p.USD
				if p.Basis == pricing.BasisAssumed {
					m.assumed = append(m.assumed, p.Model)
				}
			}
		}
	}
	u.blocks = append(u.blocks, m)
}

func (u *Summer) finishBlocks(emit func(any) error) error {
	msgs := u.blocks
	u.blocks = nil
	sort.SliceStable(msgs, func(i, j int) bool { return msgs[i].t.Before(msgs[j].t) })
	now := u.o.Now
	times := make([]time.Time, len(msgs))
	for i := range msgs {
		times[i] = msgs[i].t
	}
	spans := BlockSpans(times)
	cur, future := Current(spans, times, now)
	if future > 0 {
		u.o.Warn("usage --sum block: " + FutureNote(future))
	}
	for i, sp := range spans {
		if err := emit(u.block(sp.Start, msgs[sp.From:sp.To], now, i == cur)); err != nil {
			return err
		}
	}
	return nil
}

// block sums one block's messages; current: it is the current block
// (Current), which runs when Active says so.
func (u *Summer) block(start time.Time, msgs []blockMsg, now time.Time, current bool) *BlockSum {
	end := start.Add(BlockDuration)
	last := msgs[len(msgs)-1].t
	b := &BlockSum{BlockStart: start.Format(BlockTimeLayout), BlockEnd: end.Format(BlockTimeLayout),
		ActualEnd: last.UTC().Format(BlockTimeLayout), Active: current && Active(start, msgs[0].t, last, now), Models: []string{}}
	s := &Sum{Messages: int64(len(msgs)), cost: &costSum{}}
	cost := u.o.Prices != nil
	for i := range msgs {
		m := &msgs[i]
		b.InputTokens += m.u.InputTokens
		b.OutputTokens += m.u.OutputTokens
		b.CacheReadInputTokens += m.u.CacheReadInputTokens
		b.CacheCreationInputTokens += m.u.CacheCreationInputTokens
		total, _ := m.u.Total()
		b.TotalTokens += total
		b.Messages++
		if m.model != "" && !slices.Contains(b.Models, m.model) {
			b.Models = append(b.Models, m.model)
		}
		if !cost {
			continue
		}
		cs := s.cost
		if m.unpriced {
			cs.unpricedMessages++
			if !slices.Contains(cs.unpriced, m.costModel) {
				cs.unpriced = append(cs.unpriced, m.costModel)
			}
			continue
		}
		cs.total += m.usd
		for _, a := range m.assumed {
			if !slices.Contains(cs.assumed, a) {
				cs.assumed = append(cs.assumed, a)
			}
		}
	}
	if cost {
		s.finishCost()
		b.CostUSD, b.UnpricedModels, b.AssumedModels, b.UnpricedMessages = s.CostUSD, s.UnpricedModels, s.AssumedModels, s.UnpricedMessages
	}
	if !b.Active {
		return b
	}
	if f, ok := ForecastOf(msgs[0].t, last, end, now, len(msgs), b.TotalTokens, s.cost.total); ok {
		br := &BurnRate{TokensPerMinute: f.TokensPerMinute}
		p := &Projection{TotalTokens: f.ProjectedTokens, RemainingMinutes: int64(f.RemainingMinutes + 0.5)}
		if cost {
			br.CostPerHour, p.CostUSD = &f.USDPerHour, &f.ProjectedUSD
		}
		b.BurnRate, b.Projection = br, p
	}
	return b
}
