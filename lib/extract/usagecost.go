package extract

import (
	"encoding/json"
	"errors"
	"math"

	"github.com/ccpipe/ccpipe/lib/pricing"
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

// costOf prices one message; ok is false when its usage is out of range.
func (u *usageState) costOf(r *usageRec) (ch pricing.Charge, model string, err error) {
	return priceUsage(u.x.opts.Prices, r.reqModel, r.model, r.usageRaw)
}

// priceUsage prices a usage object requested as reqModel (else answered
// as model): the one pricing rule of usage --cost and cc-render.
func priceUsage(cat *pricing.Catalog, reqModel, model, usageRaw string) (ch pricing.Charge, _ string, err error) {
	if reqModel != "" {
		model = reqModel
	}
	pu, err := pricing.ParseUsage([]byte(usageRaw))
	if err != nil {
		var re *pricing.RangeError
		if !errors.As(err, &re) {
			return ch, model, errors.New("no usage object")
		}
		return ch, model, err
	}
	ch = cat.Cost(model, &pu)
	if !finite(ch.USD) {
		// A finite but huge price or count: +Inf would stop the JSON
		// output (and vanish from a sum); the message is flagged instead.
		return pricing.Charge{}, model, errors.New("the cost overflows (a price or token count too large)")
	}
	return ch, model, nil
}

func finite(f float64) bool { return !math.IsInf(f, 0) && !math.IsNaN(f) }

// PriceLine prices the assistant line of one API response as usage --cost
// does; model is its message.model, used when the line has no
// requestedModel. It returns the model priced.
func PriceLine(cat *pricing.Catalog, line []byte, model string) (pricing.Charge, string, error) {
	reqModel, usage := costFields(line)
	return priceUsage(cat, reqModel, model, usage)
}

// costedUsage is the --cost record of a message.
func (u *usageState) costedUsage(r *usageRec, base Usage) CostedUsage {
	ch, model, err := u.costOf(r)
	c := CostedUsage{Usage: base, RequestedModel: str(r.reqModel), UsageObject: r.usageRaw}
	if err != nil {
		c.CostBasis = "unpriced"
		c.CostError = str(err.Error())
		u.x.opts.Warn(r.uuid + ": " + model + ": " + err.Error() + ", not priced")
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
			cs.parts = append(cs.parts, pricing.Timed{TS: r.ts, USD: p.USD})
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
	if none || !finite(v) {
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

// costFields reads requestedModel and the raw message.usage object of an
// assistant line. It decodes only those two fields (with encoding/json, so
// that it does not depend on the fast scanner's internals); it runs only
// with --cost.
func costFields(line []byte) (reqModel, usage string) {
	var r struct {
		RequestedModel any `json:"requestedModel"`
		Msg            *struct {
			Usage json.RawMessage `json:"usage"`
		} `json:"message"`
	}
	// A field of another type (message not an object) is a type error
	// that leaves the other fields read; only a syntax error loses all.
	var se *json.SyntaxError
	if err := json.Unmarshal(line, &r); errors.As(err, &se) {
		return "", ""
	}
	reqModel, _ = r.RequestedModel.(string)
	if r.Msg != nil && len(r.Msg.Usage) > 0 && string(r.Msg.Usage) != "null" {
		usage = string(r.Msg.Usage)
	}
	return reqModel, usage
}
