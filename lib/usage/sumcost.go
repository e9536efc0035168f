package usage

import (
	"encoding/json"
	"slices"

	"github.com/ccpipe/ccpipe/lib/pricing"
)

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

func (u *Summer) addCost(s *Sum, r *Message) {
	if s.cost == nil {
		s.cost = &costSum{}
	}
	cs := s.cost
	ch, model, err := r.Price(u.o.Prices)
	if err != nil {
		cs.unpricedMessages++
		if !slices.Contains(cs.unpriced, model) {
			cs.unpriced = append(cs.unpriced, model)
		}
		return
	}
	for _, p := range ch.Parts {
		if p.Basis == pricing.BasisAssumed && !slices.Contains(cs.assumed, p.Model) {
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
func (s *Sum) finishCost() {
	cs := s.cost
	if cs == nil {
		cs = &costSum{}
	}
	if len(cs.parts) > 0 {
		cs.total = pricing.SessionTotal(cs.parts)
		cs.parts = nil
	}
	s.CostUSD = CostJSON(cs.total, cs.unpricedMessages > 0 && cs.unpricedMessages == s.Messages)
	s.UnpricedModels, s.AssumedModels = nonNil(cs.unpriced), nonNil(cs.assumed)
	s.UnpricedMessages = &cs.unpricedMessages
}

// CostJSON is a cost as JSON: null when nothing could be priced (no cost,
// not 0).
func CostJSON(v float64, none bool) json.RawMessage {
	if none || !Finite(v) {
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
