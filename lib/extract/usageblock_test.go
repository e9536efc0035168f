package extract

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/pricing"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// The active block has a burn rate from its first message to its last and
// a projection to its end.
func TestActiveBlockBurnRate(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "11111111-2222-4333-8444-555555555555.jsonl")
	lines := `{"type":"assistant","uuid":"a","timestamp":"2026-05-02T10:30:00.000Z","sessionId":"s","requestId":"r1","requestedModel":"claude-sonnet-5-5","message":{"id":"m1","model":"claude-sonnet-5-5","content":[],"usage":{"input_tokens":600000,"output_tokens":0}}}
{"type":"assistant","uuid":"b","timestamp":"2026-05-02T11:30:00.000Z","sessionId":"s","requestId":"r2","requestedModel":"claude-sonnet-5-5","message":{"id":"m2","model":"claude-sonnet-5-5","content":[],"usage":{"input_tokens":600000,"output_tokens":0}}}
`
	if err := os.WriteFile(p, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []*usage.BlockSum
	now, _ := time.Parse(time.RFC3339, "2026-05-02T12:00:00Z")
	x, err := New(Options{Kind: "usage", Sum: "block", Prices: pricing.Embedded(), Now: now}, func(v any) error {
		got = append(got, v.(*usage.BlockSum))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.ReadTranscript(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("blocks: %d", len(got))
	}
	b := got[0]
	var cost float64
	_ = json.Unmarshal(b.CostUSD, &cost)
	// 1.2M tokens over 60 minutes: 20000/min; $2.40 over an hour; 180 min left.
	if !b.Active || b.BurnRate == nil || b.BurnRate.TokensPerMinute != 20000 || *b.BurnRate.CostPerHour != 2.4 ||
		b.Projection.RemainingMinutes != 180 || b.Projection.TotalTokens != 1200000+20000*180 || cost != 2.4 {
		bb, _ := json.Marshal(b)
		t.Errorf("active block %s", bb)
	}
}
