package claudetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// CostState is the last cost-state record of the transcript at path:
// Claude Code's own session total (totalCostUSD, hasUnknownModelCost),
// the oracle cc-extract usage --cost is checked against.
func CostState(t testing.TB, path string) (total float64, unknown bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	found := false
	for sc.Scan() {
		if !bytes.Contains(sc.Bytes(), []byte(`"cost-state"`)) {
			continue
		}
		var r struct {
			Type                string  `json:"type"`
			TotalCostUSD        float64 `json:"totalCostUSD"`
			HasUnknownModelCost bool    `json:"hasUnknownModelCost"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Type == "cost-state" {
			total, unknown, found = r.TotalCostUSD, r.HasUnknownModelCost, true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if !found {
		t.Fatalf("%s: no cost-state record", path)
	}
	return total, unknown
}
