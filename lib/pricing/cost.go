package pricing

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// Usage is the usage object of one API response, as Claude Code writes it
// into the transcript (message.usage): the fields that price it.
type Usage struct {
	InputTokens, OutputTokens                      float64
	CacheReadInputTokens, CacheCreationInputTokens float64
	// Ephemeral1h and Ephemeral5m are cache_creation's split.
	Ephemeral1h, Ephemeral5m float64
	WebSearchRequests        float64
	InferenceGeo, Speed      string
	Iterations               []Iteration
}

// Iteration is one entry of usage.iterations. A token count that is not a
// finite non-negative number is nil.
type Iteration struct {
	Type, Model              string
	In, Out, CacheRead, CW   *float64
	Ephemeral1h, Ephemeral5m float64
}

type wireUsage struct {
	InputTokens              any        `json:"input_tokens"`
	OutputTokens             any        `json:"output_tokens"`
	CacheReadInputTokens     any        `json:"cache_read_input_tokens"`
	CacheCreationInputTokens any        `json:"cache_creation_input_tokens"`
	CacheCreation            *wireSplit `json:"cache_creation"`
	ServerToolUse            *struct {
		WebSearchRequests any `json:"web_search_requests"`
	} `json:"server_tool_use"`
	InferenceGeo any               `json:"inference_geo"`
	Speed        any               `json:"speed"`
	Iterations   []json.RawMessage `json:"iterations"`
}

type wireIteration struct {
	Type                     string     `json:"type"`
	Model                    string     `json:"model"`
	InputTokens              any        `json:"input_tokens"`
	OutputTokens             any        `json:"output_tokens"`
	CacheReadInputTokens     any        `json:"cache_read_input_tokens"`
	CacheCreationInputTokens any        `json:"cache_creation_input_tokens"`
	CacheCreation            *wireSplit `json:"cache_creation"`
}

// wireSplit is usage.cache_creation.
type wireSplit struct {
	Ephemeral5m any `json:"ephemeral_5m_input_tokens"`
	Ephemeral1h any `json:"ephemeral_1h_input_tokens"`
}

// RangeError is a usage field that cannot be priced: not a number, negative,
// fractional or beyond 2^53. The response is then left unpriced, never
// priced as 0.
type RangeError struct {
	Field string
	Value any
}

func (e *RangeError) Error() string {
	return fmt.Sprintf("usage.%s: %v is not a token count", e.Field, jsonText(e.Value))
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// count reads a token count; null and absent read 0.
func count(field string, v any, dst *float64) error {
	if v == nil {
		*dst = 0
		return nil
	}
	f, ok := v.(float64)
	if !ok || f < 0 || f != math.Trunc(f) || f > 1<<53 || math.IsInf(f, 0) {
		return &RangeError{Field: field, Value: v}
	}
	*dst = f
	return nil
}

// iterCount is Claude Code's test for an iteration's counts: a finite
// non-negative number.
func iterCount(v any) *float64 {
	f, ok := v.(float64)
	if !ok || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil
	}
	return &f
}

func softCount(v any) float64 {
	if f, ok := v.(float64); ok {
		return f
	}
	return 0
}

// ParseUsage reads a usage object. A top-level count out of range is a
// *RangeError.
func ParseUsage(raw []byte) (Usage, error) {
	var w wireUsage
	var u Usage
	if err := json.Unmarshal(raw, &w); err != nil {
		// A count beyond float64 (1e400) is out of range, not "no usage".
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && strings.HasPrefix(te.Value, "number") {
			return u, &RangeError{Field: te.Field, Value: json.Number(strings.TrimSpace(strings.TrimPrefix(te.Value, "number")))}
		}
		return u, fmt.Errorf("usage: %w", err)
	}
	for _, f := range []struct {
		name string
		v    any
		dst  *float64
	}{
		{"input_tokens", w.InputTokens, &u.InputTokens},
		{"output_tokens", w.OutputTokens, &u.OutputTokens},
		{"cache_read_input_tokens", w.CacheReadInputTokens, &u.CacheReadInputTokens},
		{"cache_creation_input_tokens", w.CacheCreationInputTokens, &u.CacheCreationInputTokens},
	} {
		if err := count(f.name, f.v, f.dst); err != nil {
			return u, err
		}
	}
	if w.CacheCreation != nil {
		if err := count("cache_creation.ephemeral_1h_input_tokens", w.CacheCreation.Ephemeral1h, &u.Ephemeral1h); err != nil {
			return u, err
		}
		if err := count("cache_creation.ephemeral_5m_input_tokens", w.CacheCreation.Ephemeral5m, &u.Ephemeral5m); err != nil {
			return u, err
		}
	}
	if w.ServerToolUse != nil {
		if err := count("server_tool_use.web_search_requests", w.ServerToolUse.WebSearchRequests, &u.WebSearchRequests); err != nil {
			return u, err
		}
	}
	u.InferenceGeo, _ = w.InferenceGeo.(string)
	u.Speed, _ = w.Speed.(string)
	for _, r := range w.Iterations {
		var wi wireIteration
		if json.Unmarshal(r, &wi) != nil {
			continue // not an object: Claude Code's filters skip it too
		}
		it := Iteration{Type: wi.Type, Model: wi.Model, In: iterCount(wi.InputTokens), Out: iterCount(wi.OutputTokens),
			CacheRead: iterCount(wi.CacheReadInputTokens), CW: iterCount(wi.CacheCreationInputTokens)}
		if wi.CacheCreation != nil {
			it.Ephemeral1h, it.Ephemeral5m = softCount(wi.CacheCreation.Ephemeral1h), softCount(wi.CacheCreation.Ephemeral5m)
		}
		u.Iterations = append(u.Iterations, it)
	}
	return u, nil
}

// Part is one charge: Claude Code books the executor's response and each
// advisor iteration separately, each under its own model.
type Part struct {
	Model string
	USD   float64
	Basis Basis
}

// Charge is the cost of one API response.
type Charge struct {
	// USD is the sum of the parts, in order.
	USD   float64
	Parts []Part
}

// Basis is the weakest basis of the parts: assumed over override over
// catalog.
func (c Charge) Basis() Basis {
	b := BasisCatalog
	for _, p := range c.Parts {
		switch {
		case p.Basis == BasisAssumed:
			return BasisAssumed
		case p.Basis == BasisOverride:
			b = BasisOverride
		}
	}
	return b
}

// Cost prices one API response requested as model. Sums over responses
// must add the parts one by one, in order, to equal Claude Code's totals.
func (c *Catalog) Cost(model string, u *Usage) Charge {
	p := c.lookup(model, u.Speed)
	ch := Charge{Parts: []Part{{Model: model, USD: c.price(&p, u), Basis: p.basis}}}
	ch.USD = ch.Parts[0].USD
	// Advisor iterations: priced under the advisor's model, with the
	// request's geo but neither speed, web search nor iterations.
	for _, it := range u.Iterations {
		if it.Type != "advisor_message" {
			continue
		}
		au := Usage{InputTokens: deref(it.In), OutputTokens: deref(it.Out), CacheReadInputTokens: deref(it.CacheRead),
			CacheCreationInputTokens: deref(it.CW), Ephemeral1h: it.Ephemeral1h, Ephemeral5m: it.Ephemeral5m,
			InferenceGeo: u.InferenceGeo}
		ap := c.lookup(it.Model, "")
		usd := c.price(&ap, &au)
		ch.Parts = append(ch.Parts, Part{Model: it.Model, USD: usd, Basis: ap.basis})
		ch.USD += usd
	}
	return ch
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

// request is one priced unit: the whole response, or one iteration of it.
type request struct {
	in, out, cr, cw, oneHour float64
}

// price is Claude Code's formula, operation for operation: each term
// divided by 1e6 then multiplied by its rate, terms added in the order
// input, output, cache read, cache write, iterations summed from 0, the
// sum multiplied by the geo factor, web search added last.
func (c *Catalog) price(p *prices, u *Usage) float64 {
	reqs := c.split(p, u)
	y := 0.0
	for _, r := range reqs {
		rt := p.Rates
		if lp := p.LongPrompt; lp != nil && r.in+r.cr+r.cw > lp.AbovePromptTokens {
			rt = lp.Rates
		}
		y += r.in/1e6*rt.Input + r.out/1e6*rt.Output + r.cr/1e6*rt.CacheRead + write(&rt, r.cw, r.oneHour)
	}
	geo := 1.0
	if u.InferenceGeo == "us" && !p.noGeo {
		geo = c.GeoUSMultiplier
	}
	return y*geo + u.WebSearchRequests*p.WebSearch
}

// write prices cache writes: the clamped 1-hour part at the 1h rate, the
// rest at the 5m rate.
func write(rt *Rates, cw, oneHour float64) float64 {
	if rt.CacheWrite1h == nil || oneHour <= 0 {
		return cw / 1e6 * rt.CacheWrite5m
	}
	return oneHour/1e6**rt.CacheWrite1h + (cw-oneHour)/1e6*rt.CacheWrite5m
}

func clamp(x, lo, hi float64) float64 { return math.Max(lo, math.Min(x, hi)) }

// split returns the units to price: the message iterations when the table
// has a long-prompt tier and they add up to the top level exactly, else
// the top level alone.
func (c *Catalog) split(p *prices, u *Usage) []request {
	top := request{in: u.InputTokens, out: u.OutputTokens, cr: u.CacheReadInputTokens, cw: u.CacheCreationInputTokens,
		oneHour: clamp(u.Ephemeral1h, 0, u.CacheCreationInputTokens)}
	if p.LongPrompt == nil {
		return []request{top}
	}
	var its []Iteration
	for _, it := range u.Iterations {
		if it.Type == "message" {
			its = append(its, it)
		}
	}
	if len(its) == 0 {
		return []request{top}
	}
	var sin, sout, scr, scw, s1h float64
	for _, it := range its {
		if it.In == nil || it.Out == nil || it.CacheRead == nil || it.CW == nil {
			return []request{top}
		}
		sin += *it.In
		sout += *it.Out
		scr += *it.CacheRead
		scw += *it.CW
		s1h += clamp(it.Ephemeral1h, 0, *it.CW)
	}
	if sin != u.InputTokens || sout != u.OutputTokens || scr != u.CacheReadInputTokens || scw != u.CacheCreationInputTokens {
		return []request{top}
	}
	// 1h writes of the top level that no iteration accounts for go to the
	// iterations' unsplit writes, in order.
	left := math.Max(0, top.oneHour-s1h)
	out := make([]request, len(its))
	for i, it := range its {
		oneHour := clamp(it.Ephemeral1h, 0, *it.CW)
		fiveMin := clamp(it.Ephemeral5m, 0, *it.CW-oneHour)
		k := math.Min(left, *it.CW-fiveMin-oneHour)
		left -= k
		out[i] = request{in: *it.In, out: *it.Out, cr: *it.CacheRead, cw: *it.CW, oneHour: clamp(oneHour+k, 0, *it.CW)}
	}
	return out
}
