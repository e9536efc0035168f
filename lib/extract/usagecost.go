package extract

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

// costedUsage is the --cost record of a message.
func (u *usageState) costedUsage(r *usageRec, base Usage) CostedUsage {
	ch, model, err := r.Price(u.x.opts.Prices)
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
