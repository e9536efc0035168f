package usage

import (
	"math"
	"testing"
)

// A sum of finite costs that overflows prints null, never drops the field
// (json.Marshal refuses ±Inf and gave no bytes).
func TestCostJSONNonFinite(t *testing.T) {
	for _, v := range []float64{math.Inf(1), math.NaN()} {
		if got := string(CostJSON(v, false)); got != "null" {
			t.Errorf("CostJSON(%v) = %q", v, got)
		}
	}
	if got := string(CostJSON(1.5, false)); got != "1.5" {
		t.Errorf("CostJSON(1.5) = %q", got)
	}
}
