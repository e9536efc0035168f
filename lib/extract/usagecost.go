package extract

import (
	"encoding/json"

	"github.com/ccpipe/ccpipe/lib/pricing"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// The cost side of usage: with Options.Prices set, each message is priced
// by lib/pricing from the request model and its whole usage object, which
// the fast scanner does not read; costFields reads them from the line.

// CostedUsage is a usage fact with its cost (usage --cost).
type CostedUsage struct {
	Usage
	// RequestedModel is the model Claude Code asked for, which prices
	// the message (message.model is what the API answered).
	RequestedModel *string `json:"requested_model"`
	// CostUSD is null when the usage cannot be priced (CostError says why).
	CostUSD   *float64 `json:"cost_usd"`
	CostBasis string   `json:"cost_basis"`
	CostError *string  `json:"cost_error"`
	// UsageObject is the message.usage priced (not printed): cc-otel
	// reads the cache-write split and speed of its api_request events
	// from it.
	UsageObject string `json:"-"`
}

// costOf prices one message; err says why it cannot be priced.
func (u *usageState) costOf(r *usageRec) (ch pricing.Charge, model string, err error) {
	return r.Price(u.x.opts.Prices)
}

// costedUsage is the --cost record of a message.
func (u *usageState) costedUsage(r *usageRec, base Usage) CostedUsage {
	ch, model, err := u.costOf(r)
	c := CostedUsage{Usage: base, RequestedModel: str(r.RequestedModel), UsageObject: r.Usage}
	if err != nil {
		c.CostBasis = "unpriced"
		c.CostError = str(err.Error())
		u.x.opts.Warn(r.UUID + ": " + model + ": " + err.Error() + ", not priced")
		return c
	}
	c.CostUSD, c.CostBasis = &ch.USD, string(ch.Basis())
	return c
}

// costSum is the cost side of one --sum group.
type costSum struct {
	total            float64
	unpriced         []string
	assumed          []string
	unpricedMessages int64
	// parts holds the charges of a group of one session (--sum session,
	// session,model), to be added as pricing.SessionTotal does (subagent
	// messages come from their own files, after the main transcript).
	parts []pricing.Timed
}

func (u *usageState) addCost(s *UsageSum, r *usageRec) {
	if s.cost == nil {
		s.cost = &costSum{}
	}
	cs := s.cost
	ch, model, err := u.costOf(r)
	if err != nil {
		cs.unpricedMessages++
		if !containsStr(cs.unpriced, model) {
			cs.unpriced = append(cs.unpriced, model)
		}
		return
	}
	for _, p := range ch.Parts {
		if p.Basis == pricing.BasisAssumed && !containsStr(cs.assumed, p.Model) {
			cs.assumed = append(cs.assumed, p.Model)
		}
		if u.groups.has("session") {
			cs.parts = append(cs.parts, pricing.Timed{TS: r.Timestamp, USD: p.USD})
		} else {
			cs.total += p.USD
		}
	}
}

// finishCost fills a group's cost fields. cost_usd sums what could be
// priced; unpriced_messages says how many could not.
func (s *UsageSum) finishCost() {
	cs := s.cost
	if cs == nil {
		cs = &costSum{}
	}
	if len(cs.parts) > 0 {
		cs.total = pricing.SessionTotal(cs.parts)
		cs.parts = nil
	}
	s.CostUSD = costJSON(cs.total, cs.unpricedMessages > 0 && cs.unpricedMessages == s.Messages)
	s.UnpricedModels, s.AssumedModels = nonNil(cs.unpriced), nonNil(cs.assumed)
	s.UnpricedMessages = &cs.unpricedMessages
}

// costJSON is a cost as JSON: null when nothing could be priced (no cost,
// not 0).
func costJSON(v float64, none bool) json.RawMessage {
	if none || !usage.Finite(v) {
		return json.RawMessage("null") // never dropped: json.Marshal refuses ±Inf
	}
	b, _ := json.Marshal(v)
	return b
}

func nonNil(l []string) *[]string {
	if l == nil {
		l = []string{}
	}
	return &l
}
