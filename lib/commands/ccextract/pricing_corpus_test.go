package ccextract

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
)

// TestPricingCorpus checks every session of testdata/corpus-pricing,
// written by the real Claude Code 2.1.328 (lib/internal/contract's
// TestPricingOracle): the session's cost_usd must equal the totalCostUSD
// Claude Code wrote, to the bit, and an unknown model must be flagged
// exactly when Claude Code set hasUnknownModelCost.
func TestPricingCorpus(t *testing.T) {
	files, _ := filepath.Glob("../../../testdata/corpus-pricing/*.jsonl")
	if len(files) < 33 {
		t.Fatalf("pricing corpus: %d sessions, want 33", len(files))
	}
	// The real-CLI corpus too, subagents included (c0a1f002 has four).
	// Left out: c0a1f003, whose /compact call Claude Code charges without
	// writing its usage anywhere in the transcript, and c0a1f005, which
	// got no response at all (cost 0, no usage record to sum).
	for _, id := range []string{"c0a1f001-0000-4000-8000-000000000001", "c0a1f002-0000-4000-8000-000000000002",
		"c0a1f004-0000-4000-8000-000000000004", "c0a1f006-0000-4000-8000-000000000006", "c0a1f007-0000-4000-8000-000000000007"} {
		m, _ := filepath.Glob("../../../testdata/corpus/claude/projects/*/" + id + ".jsonl")
		files = append(files, m...)
	}
	if len(files) != 38 {
		t.Fatalf("%d sessions, want 38", len(files))
	}
	for _, f := range files {
		want, unknown := claudetest.CostState(t, f)
		var out, errb bytes.Buffer
		if code := Run([]string{"usage", "--cost", "--sum", "session", "--subagents", f}, nil, &out, &errb); code != 0 {
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
