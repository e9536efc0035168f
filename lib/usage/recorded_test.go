package usage

import (
	"reflect"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cache"
)

// TestRecordedChains: the last cost-state of a chain of runs that carried
// the running total over (one startTime, the total never going down) is
// the chain's figure; a cost-state with another startTime, or a lower
// total, starts a chain from zero, and the chains add up.
func TestRecordedChains(t *testing.T) {
	state := func(usd string, start string) string {
		return `{"type":"cost-state","sessionId":"s1","totalCostUSD":` + usd + `,"startTime":` + start +
			`,"modelUsage":{"m":{"inputTokens":10,"outputTokens":5,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"costUSD":` + usd + `}},"hasUnknownModelCost":false}`
	}
	for _, c := range []struct {
		name   string
		lines  []string
		usd    float64
		tokens int64
		states int
	}{
		{"resumed twice", []string{state("0.5", "1"), state("1.5", "1"), state("2.5", "1")}, 2.5, 15, 3},
		{"written twice at one run's end", []string{state("0.5", "1"), state("0.5", "1")}, 0.5, 15, 2},
		{"a run from zero", []string{state("0.5", "1"), state("0.25", "2")}, 0.75, 30, 2},
		{"a new start, higher", []string{state("0.5", "1"), state("1", "2"), state("1.5", "2")}, 2, 30, 3},
		{"a lower total, same start", []string{state("0.5", "1"), state("0.25", "1")}, 0.75, 30, 2},
		{"none", []string{`{"type":"user","message":{"content":"cost-state"}}`, `{"type":"cost-state","totalCostUSD":"free"}`}, 0, 0, 0},
	} {
		var r Recorded
		for _, l := range c.lines {
			r.AddLine([]byte(l))
		}
		if r.States != c.states || (c.states > 0 && (r.USD() != c.usd || r.Tokens() != c.tokens)) {
			t.Errorf("%s: %d states $%v %d tokens, want %d $%v %d", c.name, r.States, r.USD(), r.Tokens(), c.states, c.usd, c.tokens)
		}
		d := cache.NewDecoder(AppendRecorded(nil, &r))
		if back := DecodeRecorded(d); !d.Done() || !reflect.DeepEqual(back, r) {
			t.Errorf("%s: the cache gives %+v, want %+v", c.name, back, r)
		}
	}
}

// TestRecordedReasons: each reason comes from what the transcripts show;
// an equal figure has none; a difference with none of them, where Claude
// Code counted more tokens than the transcripts hold, is calls in no
// transcript.
func TestRecordedReasons(t *testing.T) {
	var r Recorded
	r.AddLine([]byte(`{"type":"cost-state","sessionId":"s","totalCostUSD":0.3,"startTime":1,"modelUsage":{"m":{"inputTokens":300}},"hasUnknownModelCost":true}`))
	if got := r.Reasons(Reconcile{USD: 0.3, Tokens: 300}); got != nil {
		t.Errorf("equal figures: %q", got)
	}
	if got := r.Reasons(Reconcile{USD: 0.1, Tokens: 100}); !reflect.DeepEqual(got, []string{ReasonCallsInNoTranscript, ReasonUnknownModel}) {
		t.Errorf("tokens missing: %q", got)
	}
	r.AddLine([]byte(`{"parentUuid":null,"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}`))
	r.Copied = 2
	got := r.Reasons(Reconcile{USD: 0.1, Tokens: 100, Prices: true, Partial: true})
	if want := []string{ReasonForkBase, ReasonCompaction, ReasonUnknownModel, ReasonPrices, ReasonPartial}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if r.Compactions != 1 {
		t.Errorf("%d compactions", r.Compactions)
	}
}
