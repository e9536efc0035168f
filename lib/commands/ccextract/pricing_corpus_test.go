package ccextract

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestPricingCorpus checks every session of testdata/corpus-pricing,
// written by the real Claude Code 2.1.328 (lib/internal/contract's
// TestPricingOracle): the session's cost_usd must equal the totalCostUSD
// Claude Code wrote, to the bit, and an unknown model must be flagged
// exactly when Claude Code set hasUnknownModelCost.
func TestPricingCorpus(t *testing.T) {
	files, _ := filepath.Glob("../../../testdata/corpus-pricing/*.jsonl")
	if len(files) < 32 {
		t.Fatalf("pricing corpus: %d sessions, want 32", len(files))
	}
	for _, f := range files {
		want, unknown := lastCostState(t, f)
		var out, errb bytes.Buffer
		if code := Run([]string{"usage", "--cost", "--sum", "session", f}, nil, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, errb.String())
		}
		var s struct {
			CostUSD       float64  `json:"cost_usd"`
			AssumedModels []string `json:"assumed_models"`
		}
		if err := json.Unmarshal(out.Bytes(), &s); err != nil {
			t.Fatalf("%s: %v: %s", f, err, out.String())
		}
		if s.CostUSD != want {
			t.Errorf("%s: cost_usd %v (%x), Claude Code %v (%x)", filepath.Base(f), s.CostUSD, math.Float64bits(s.CostUSD), want, math.Float64bits(want))
		}
		if (len(s.AssumedModels) > 0) != unknown {
			t.Errorf("%s: assumed_models %v, hasUnknownModelCost %v", filepath.Base(f), s.AssumedModels, unknown)
		}
	}
}

func lastCostState(t *testing.T, path string) (float64, bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var total float64
	var unknown, found bool
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r struct {
			Type                string  `json:"type"`
			TotalCostUSD        float64 `json:"totalCostUSD"`
			HasUnknownModelCost bool    `json:"hasUnknownModelCost"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Type == "cost-state" {
			total, unknown, found = r.TotalCostUSD, r.HasUnknownModelCost, true
		}
	}
	if !found {
		t.Fatalf("%s: no cost-state", path)
	}
	return total, unknown
}
