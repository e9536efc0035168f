package pricing

import (
	"errors"
	"testing"
)

// modelSession is the two messages every model-<id> session of the spec
// sent: the second has a 100/400 5m/1h split.
var modelSession = []string{
	`{"input_tokens":1200,"output_tokens":150,"cache_creation_input_tokens":2000,"cache_read_input_tokens":30000}`,
	`{"input_tokens":800,"output_tokens":60,"cache_creation_input_tokens":500,"cache_read_input_tokens":32000,"cache_creation":{"ephemeral_5m_input_tokens":100,"ephemeral_1h_input_tokens":400}}`,
}

// sessionCost adds the charges the way Claude Code's cost ledger does.
func sessionCost(t *testing.T, c *Catalog, model string, usages ...string) (float64, Basis) {
	t.Helper()
	total := 0.0
	basis := BasisCatalog
	for _, raw := range usages {
		u, err := ParseUsage([]byte(raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		ch := c.Cost(model, &u)
		for _, p := range ch.Parts {
			total += p.USD
		}
		if ch.Basis() != BasisCatalog {
			basis = ch.Basis()
		}
	}
	return total, basis
}

func TestEveryCatalogModel(t *testing.T) {
	// Claude Code's session cost for each catalog id (spec: pricing.md).
	want := map[string]float64{
		"claude-3-5-haiku": 0.01014, "claude-haiku-4-5": 0.012675, "claude-haiku-5-5": 0.0012675,
		"claude-3-5-sonnet": 0.038025, "claude-3-7-sonnet": 0.038025, "claude-sonnet-4-0": 0.038025,
		"claude-sonnet-4-5": 0.038025, "claude-sonnet-4-6": 0.038025, "claude-sonnet-5": 0.02535,
		"claude-sonnet-5-5": 0.01915, "claude-opus-4-0": 0.190125, "claude-opus-4-1": 0.190125,
		"claude-opus-4-5": 0.063375, "claude-opus-4-6": 0.063375, "claude-opus-4-7": 0.063375,
		"claude-opus-4-8": 0.063375, "claude-opus-5": 0.063375, "claude-opus-5-5": 0.0383,
		"claude-fable-5": 0.12675, "claude-fable-5-1": 0.08025, "claude-fable-5-2": 0.0642,
		"claude-mythos-5": 0.12675, "claude-mythos-5-1": 0.08025, "claude-mythos-5-2": 0.0642,
	}
	c := Embedded()
	if len(c.Models) != 24 || len(c.Tiers) != 12 {
		t.Fatalf("catalog has %d models and %d tiers, want 24 and 12", len(c.Models), len(c.Tiers))
	}
	for _, id := range c.ModelIDs() {
		got, basis := sessionCost(t, c, id, modelSession...)
		if !near(got, want[id]) || basis != BasisCatalog {
			t.Errorf("%s: %v (%s), want %v (catalog)", id, got, basis, want[id])
		}
	}
	// The exact float Claude Code printed for sonnet-4-6.
	if got, _ := sessionCost(t, c, "claude-sonnet-4-6", modelSession...); got != 0.038024999999999996 {
		t.Errorf("sonnet-4-6 session: %v, want Claude Code's 0.038024999999999996", got)
	}
}

// near is for the spec's rounded numbers; bit-exactness is the contract
// oracle's job.
func near(a, b float64) bool {
	d := a - b
	return d < 1e-12 && d > -1e-12
}

func TestRules(t *testing.T) {
	for _, tc := range []struct {
		name, model string
		usages      []string
		want        float64
		basis       Basis
	}{
		{"R2 multi-block once", "claude-opus-5-5", []string{
			`{"input_tokens":2200,"output_tokens":300,"cache_read_input_tokens":12000,"cache_creation_input_tokens":1500}`,
			`{"input_tokens":400,"output_tokens":90,"cache_read_input_tokens":13500}`}, 0.0308, BasisCatalog},
		{"R3 requested model", "claude-opus-5-5", []string{`{"input_tokens":2000,"output_tokens":100,"cache_read_input_tokens":8000}`}, 0.0116, BasisCatalog},
		{"R3 [1m] suffix", "claude-opus-4-6[1m]", []string{`{"input_tokens":250000,"output_tokens":100,"cache_read_input_tokens":5000}`}, 1.255, BasisCatalog},
		{"R3 dated id", "claude-haiku-4-5-20251001", []string{`{"input_tokens":1000,"output_tokens":100,"cache_read_input_tokens":5000}`}, 0.002, BasisCatalog},
		{"alias", "haiku", []string{`{"input_tokens":100000,"output_tokens":0}`}, 0.01, BasisCatalog},
		{"R4 1h only", "claude-sonnet-5-5", []string{`{"input_tokens":3000,"output_tokens":200,"cache_creation_input_tokens":10000,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":10000}}`}, 0.048, BasisCatalog},
		{"R4 mixed", "claude-sonnet-5-5", []string{
			`{"input_tokens":2500,"output_tokens":120,"cache_read_input_tokens":1000,"cache_creation_input_tokens":6000,"cache_creation":{"ephemeral_5m_input_tokens":2000,"ephemeral_1h_input_tokens":4000}}`,
			`{"input_tokens":300,"output_tokens":40,"cache_read_input_tokens":8000,"cache_creation_input_tokens":1500,"cache_creation":{"ephemeral_5m_input_tokens":1500,"ephemeral_1h_input_tokens":0}}`}, 0.03285, BasisCatalog},
		{"R4 no split", "claude-sonnet-5-5", []string{`{"input_tokens":2000,"output_tokens":100,"cache_read_input_tokens":4000,"cache_creation_input_tokens":9000}`}, 0.0279, BasisCatalog},
		{"R4 partial split", "claude-sonnet-5-5", []string{`{"input_tokens":1000,"output_tokens":50,"cache_creation_input_tokens":1000,"cache_creation":{"ephemeral_5m_input_tokens":200,"ephemeral_1h_input_tokens":300}}`}, 0.00545, BasisCatalog},
		{"R4 1h over total", "claude-sonnet-5-5", []string{`{"input_tokens":1000,"output_tokens":50,"cache_creation_input_tokens":500,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":800}}`}, 0.0045, BasisCatalog},
		{"R5 long above", "claude-haiku-5-5", []string{`{"input_tokens":40000,"output_tokens":500,"cache_read_input_tokens":50000,"cache_creation_input_tokens":10001,"cache_creation":{"ephemeral_5m_input_tokens":5001,"ephemeral_1h_input_tokens":5000}}`}, 0.031875625, BasisCatalog},
		{"R5 at threshold", "claude-haiku-5-5", []string{`{"input_tokens":40000,"output_tokens":500,"cache_read_input_tokens":50000,"cache_creation_input_tokens":10000,"cache_creation":{"ephemeral_5m_input_tokens":5000,"ephemeral_1h_input_tokens":5000}}`}, 0.006375, BasisCatalog},
		{"R5 input only", "claude-haiku-5-5", []string{`{"input_tokens":100001,"output_tokens":300}`}, 0.0507505, BasisCatalog},
		{"R5 per request", "claude-haiku-5-5", []string{`{"input_tokens":20000,"output_tokens":200,"cache_read_input_tokens":100000}`, `{"input_tokens":5000,"output_tokens":100}`}, 0.01605, BasisCatalog},
		{"R5 fast without fast table keeps long", "claude-haiku-5-5", []string{`{"input_tokens":110000,"output_tokens":400,"speed":"fast"}`}, 0.056, BasisCatalog},
		{"R6 iterations split", "claude-haiku-5-5", []string{`{"input_tokens":120000,"output_tokens":400,"iterations":[{"type":"message","input_tokens":60000,"output_tokens":200,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},{"type":"message","input_tokens":60000,"output_tokens":200,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}]}`}, 0.0122, BasisCatalog},
		{"R6 iterations mismatch", "claude-haiku-5-5", []string{`{"input_tokens":120000,"output_tokens":400,"iterations":[{"type":"message","input_tokens":60000,"output_tokens":200,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}]}`}, 0.061, BasisCatalog},
		{"R7 geo us", "claude-sonnet-5-5", []string{`{"input_tokens":5000,"output_tokens":300,"cache_read_input_tokens":10000,"cache_creation_input_tokens":2000,"cache_creation":{"ephemeral_5m_input_tokens":1000,"ephemeral_1h_input_tokens":1000},"inference_geo":"us"}`}, 0.02255, BasisCatalog},
		{"R7 geo us web search", "claude-sonnet-5-5", []string{`{"input_tokens":5000,"output_tokens":300,"cache_read_input_tokens":10000,"cache_creation_input_tokens":2000,"cache_creation":{"ephemeral_5m_input_tokens":1000,"ephemeral_1h_input_tokens":1000},"inference_geo":"us","server_tool_use":{"web_search_requests":3}}`}, 0.05255, BasisCatalog},
		{"R7 other geo", "claude-sonnet-5-5", []string{`{"input_tokens":5000,"output_tokens":300,"cache_read_input_tokens":10000,"cache_creation_input_tokens":2000,"cache_creation":{"ephemeral_5m_input_tokens":1000,"ephemeral_1h_input_tokens":1000},"inference_geo":"global","service_tier":"priority"}`}, 0.0205, BasisCatalog},
		{"R9 fast opus-5-5", "claude-opus-5-5", []string{fastMsg}, 0.0616, BasisCatalog},
		{"R9 fast opus-5", "claude-opus-5", []string{fastMsg}, 0.087, BasisCatalog},
		{"R9 fast opus-4-7", "claude-opus-4-7", []string{fastMsg}, 0.261, BasisCatalog},
		{"R9 fast fable-5-2", "claude-fable-5-2", []string{fastMsg}, 0.1152, BasisCatalog},
		{"R9 fast sonnet-5-5 has no table", "claude-sonnet-5-5", []string{fastMsg}, 0.0154, BasisCatalog},
		{"R7+R9 fast geo search", "claude-opus-5-5", []string{`{"input_tokens":3000,"output_tokens":400,"cache_read_input_tokens":20000,"cache_creation_input_tokens":1000,"cache_creation":{"ephemeral_5m_input_tokens":400,"ephemeral_1h_input_tokens":600},"speed":"fast","inference_geo":"us","server_tool_use":{"web_search_requests":1}}`}, 0.07776, BasisCatalog},
		{"R10 unknown model", "claude-nonesuch-9", []string{`{"input_tokens":1000,"output_tokens":180,"cache_read_input_tokens":4500,"cache_creation_input_tokens":500}`, `{"input_tokens":1500,"output_tokens":0}`}, 0.017, BasisAssumed},
		{"R10 unknown model, fast: default's standard table", "claude-nonesuch-9", []string{fastMsg}, 0.0308, BasisAssumed},
		{"R12 advisor", "claude-sonnet-5-5", []string{`{"input_tokens":3000,"output_tokens":200,"iterations":[{"type":"message","input_tokens":3000,"output_tokens":200,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},{"type":"advisor_message","model":"claude-opus-5-5","input_tokens":8000,"output_tokens":400,"cache_read_input_tokens":1000,"cache_creation_input_tokens":0}]}`}, 0.0482, BasisCatalog},
		{"R12 advisor geo", "claude-sonnet-5-5", []string{`{"input_tokens":3000,"output_tokens":200,"inference_geo":"us","iterations":[{"type":"advisor_message","model":"claude-opus-5-5","input_tokens":8000,"output_tokens":400,"cache_read_input_tokens":1000,"cache_creation_input_tokens":0}]}`}, 0.05302, BasisCatalog},
	} {
		got, basis := sessionCost(t, Embedded(), tc.model, tc.usages...)
		if !near(got, tc.want) || basis != tc.basis {
			t.Errorf("%s: %v (%s), want %v (%s)", tc.name, got, basis, tc.want, tc.basis)
		}
	}
}

const fastMsg = `{"input_tokens":3000,"output_tokens":400,"cache_read_input_tokens":20000,"cache_creation_input_tokens":1000,"cache_creation":{"ephemeral_5m_input_tokens":400,"ephemeral_1h_input_tokens":600},"speed":"fast"}`

func TestOverrides(t *testing.T) {
	c := Embedded().WithOverrides([]OverrideRow{{Name: "claude-sonnet-5-5", InputPerMtok: 1, OutputPerMtok: 2, CacheReadPerMtok: 0.5, CacheWritePerMtok: 3}})
	// geo ignored, 1h writes at the single write rate.
	got, basis := sessionCost(t, c, "sonnet", `{"input_tokens":1000000,"output_tokens":1000000,"cache_read_input_tokens":1000000,"cache_creation_input_tokens":2000000,"cache_creation":{"ephemeral_1h_input_tokens":1000000},"inference_geo":"us"}`)
	if got != 1+2+0.5+6 || basis != BasisOverride {
		t.Errorf("override: %v (%s), want 9.5 (override)", got, basis)
	}
	if got, basis := sessionCost(t, Embedded(), "sonnet", `{"input_tokens":1000000}`); got != 2 || basis != BasisCatalog {
		t.Errorf("embedded catalog changed by WithOverrides: %v %s", got, basis)
	}
}

func TestRangeErrors(t *testing.T) {
	for _, raw := range []string{
		`{"input_tokens":-5,"output_tokens":1}`,
		`{"input_tokens":"12","output_tokens":1}`,
		`{"input_tokens":1.5}`,
		`{"input_tokens":1,"cache_creation":{"ephemeral_1h_input_tokens":-1}}`,
		`{"input_tokens":1,"server_tool_use":{"web_search_requests":true}}`,
	} {
		_, err := ParseUsage([]byte(raw))
		var re *RangeError
		if !errors.As(err, &re) {
			t.Errorf("%s: %v, want a RangeError", raw, err)
		}
	}
	if _, err := ParseUsage([]byte(`{"input_tokens":null,"output_tokens":3}`)); err != nil {
		t.Errorf("null count: %v", err)
	}
}
