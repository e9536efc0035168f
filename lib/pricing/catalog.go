// Package pricing computes what an API response cost, the way Claude Code
// does: same price table, same rules, same order of float operations, so
// that a sum over a session equals Claude Code's own totalCostUSD bit for
// bit.
//
// The table is the baked-in model catalog of one Claude Code release,
// embedded as a data file (claude-code-<version>.json); the contract suite
// fails when the installed Claude Code carries another one.
package pricing

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

//go:embed claude-code-2.1.328.json
var catalogJSON []byte

// Rates are prices in USD per million tokens.
type Rates struct {
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheWrite5m float64 `json:"cache_write_5m"`
	// CacheWrite1h is nil for a table without a 1-hour rate: every cache
	// write is then priced at CacheWrite5m.
	CacheWrite1h *float64 `json:"cache_write_1h,omitempty"`
	CacheRead    float64  `json:"cache_read"`
}

// Tier is a named price table of the catalog.
type Tier struct {
	Rates
	WebSearch float64 `json:"web_search"`
	// LongPrompt, when set, prices a whole request whose prompt (input +
	// cache read + cache write) is above AbovePromptTokens.
	LongPrompt *LongPrompt `json:"long_prompt,omitempty"`
}

// LongPrompt is the long-prompt tier of a table.
type LongPrompt struct {
	AbovePromptTokens float64 `json:"above_prompt_tokens"`
	Rates
}

// Model is one catalog entry.
type Model struct {
	ID         string `json:"id"`
	FirstParty string `json:"first_party"`
	Pricing    string `json:"pricing"`
	// Fast names the fast-mode table, used when a response says
	// usage.speed "fast"; empty when the model has none.
	Fast string `json:"fast,omitempty"`
}

// Catalog is a price table as read from one Claude Code release.
type Catalog struct {
	ClaudeCodeVersion string            `json:"claude_code_version"`
	ReadOn            string            `json:"read_on"`
	DefaultModel      string            `json:"default_model"`
	GeoUSMultiplier   float64           `json:"geo_us_multiplier"`
	Tiers             map[string]Tier   `json:"pricing_tiers"`
	FastTiers         map[string]Rates  `json:"fast_tiers"`
	Models            []Model           `json:"models"`
	Aliases           map[string]string `json:"aliases"`
	// LegacyRemap is informational: Claude Code sends these ids as another
	// model, so a transcript already names the model it was priced as.
	LegacyRemap map[string]string `json:"legacy_remap"`

	byName    map[string]*Model
	overrides map[string]Tier
}

// embedded is parsed on first use, not at init: a status line refresh
// that finds nothing new to price never needs it.
var embedded = sync.OnceValue(func() *Catalog { return mustParse(catalogJSON) })

// Embedded is the catalog built into ccpipe. It is shared: callers that
// add overrides use WithOverrides, which copies.
func Embedded() *Catalog { return embedded() }

func mustParse(b []byte) *Catalog {
	c, err := ParseCatalog(b)
	if err != nil {
		panic("pricing: embedded catalog: " + err.Error())
	}
	return c
}

// ParseCatalog reads a catalog data file and checks that every model names
// a known tier.
func ParseCatalog(b []byte) (*Catalog, error) {
	var c Catalog
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, err
	}
	c.byName = map[string]*Model{}
	for i := range c.Models {
		m := &c.Models[i]
		if _, ok := c.Tiers[m.Pricing]; !ok {
			return nil, fmt.Errorf("model %s: unknown pricing tier %q", m.ID, m.Pricing)
		}
		if _, ok := c.FastTiers[m.Fast]; m.Fast != "" && !ok {
			return nil, fmt.Errorf("model %s: unknown fast tier %q", m.ID, m.Fast)
		}
		c.byName[m.ID] = m
		if _, dup := c.byName[m.FirstParty]; !dup {
			c.byName[m.FirstParty] = m
		}
	}
	if c.byName[c.DefaultModel] == nil {
		return nil, fmt.Errorf("default model %q is not in the catalog", c.DefaultModel)
	}
	return &c, nil
}

// ModelIDs lists the catalog ids in catalog order.
func (c *Catalog) ModelIDs() []string {
	ids := make([]string, len(c.Models))
	for i, m := range c.Models {
		ids[i] = m.ID
	}
	return ids
}

// Basis says where a price came from.
type Basis string

const (
	// BasisCatalog: the model is in the catalog (by id, first-party id,
	// alias, or with a [1m] suffix).
	BasisCatalog Basis = "catalog"
	// BasisOverride: a --prices row named the model.
	BasisOverride Basis = "override"
	// BasisAssumed: the model is unknown and priced as the default model,
	// as Claude Code does (it sets hasUnknownModelCost).
	BasisAssumed Basis = "assumed"
)

// Resolve finds the catalog entry a model name is priced as: the name
// itself, its first-party id, an alias, each without a bracketed suffix
// such as [1m]. ok is false for an unknown name.
func (c *Catalog) Resolve(name string) (m *Model, ok bool) {
	n := name
	if i := strings.LastIndexByte(n, '['); i > 0 && strings.HasSuffix(n, "]") {
		n = n[:i]
	}
	for _, k := range []string{n, strings.ToLower(n)} {
		if m := c.byName[k]; m != nil {
			return m, true
		}
		if a, ok := c.Aliases[k]; ok && c.byName[a] != nil {
			return c.byName[a], true
		}
	}
	return nil, false
}

// prices is the table one request is priced with.
type prices struct {
	Tier
	basis Basis
	// noGeo: override rows ignore inference_geo, as Claude Code's
	// configured rows do.
	noGeo bool
}

// lookup picks the table for a model and speed.
func (c *Catalog) lookup(model, speed string) prices {
	if t, ok := c.overrides[model]; ok {
		return prices{Tier: t, basis: BasisOverride, noGeo: true}
	}
	m, ok := c.Resolve(model)
	basis := BasisCatalog
	if ok {
		if t, ok := c.overrides[m.ID]; ok {
			return prices{Tier: t, basis: BasisOverride, noGeo: true}
		}
	} else {
		m, basis = c.byName[c.DefaultModel], BasisAssumed
	}
	t := c.Tiers[m.Pricing]
	// An unknown model gets the default model's standard table: Claude
	// Code looks it up in the catalog map, which holds no fast prices.
	if speed == "fast" && m.Fast != "" && basis == BasisCatalog {
		// The fast table replaces the whole tier, long prompt included;
		// web search keeps its price.
		return prices{Tier: Tier{Rates: c.FastTiers[m.Fast], WebSearch: t.WebSearch}, basis: basis}
	}
	return prices{Tier: t, basis: basis}
}

// OverrideRow is one row of a --prices file, in Claude Code's own shape
// for price overrides. cacheWritePerMtok prices both 5-minute and 1-hour
// writes.
type OverrideRow struct {
	Name              string  `json:"name" yaml:"name"`
	InputPerMtok      float64 `json:"inputPerMtok" yaml:"inputPerMtok"`
	OutputPerMtok     float64 `json:"outputPerMtok" yaml:"outputPerMtok"`
	CacheReadPerMtok  float64 `json:"cacheReadPerMtok" yaml:"cacheReadPerMtok"`
	CacheWritePerMtok float64 `json:"cacheWritePerMtok" yaml:"cacheWritePerMtok"`
}

// WithOverrides returns a copy of c where each row's name prices at the
// row's rates. A row named by a catalog id (or alias, or first-party id)
// also covers the other spellings of that model.
func (c *Catalog) WithOverrides(rows []OverrideRow) *Catalog {
	cc := *c
	cc.overrides = map[string]Tier{}
	for k, v := range c.overrides {
		cc.overrides[k] = v
	}
	for _, r := range rows {
		t := Tier{Rates: Rates{Input: r.InputPerMtok, Output: r.OutputPerMtok, CacheWrite5m: r.CacheWritePerMtok,
			CacheRead: r.CacheReadPerMtok}, WebSearch: 0.01}
		cc.overrides[r.Name] = t
		if m, ok := c.Resolve(r.Name); ok {
			cc.overrides[m.ID] = t
		}
	}
	return &cc
}
