//go:build unix

package rules

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/jq"
)

func evalOne(t *testing.T, rule string) (*Match, error) {
	t.Helper()
	f, err := Load([]byte("rules:\n  - events: [PreToolUse]\n" + rule + "    decision: deny\n    reason: no\n"))
	if err != nil {
		t.Fatal(err)
	}
	data, ev := payload(t, "PreToolUse", bash("ls"))
	return f.Eval(context.Background(), ev, data)
}

// TestConditionBudget: a condition that loops or grows without end is a
// rule-file error (the failure policy applies), not a hang or an
// out-of-memory exit 2.
func TestConditionBudget(t *testing.T) {
	defer func(b jq.Budget) { CondBudget = b }(CondBudget)
	CondBudget = jq.Budget{Timeout: 300 * time.Millisecond, MaxHeap: 64 << 20}
	for _, cond := range []string{`def f: [f]; f`, `last(range(1e15))`, `[repeat("xxxxxxxx")] | length > 0`} {
		m, err := evalOne(t, "    if: '"+cond+"'\n")
		if m != nil || !errors.Is(err, jq.ErrBudget) {
			t.Errorf("if %s: match %v, error %v; want a budget error", cond, m, err)
		}
	}
	// a condition within the budget is unaffected
	if m, err := evalOne(t, "    if: '[range(1000)] | length == 1000'\n"); m == nil || err != nil {
		t.Errorf("small condition: %v, %v", m, err)
	}
}

// TestUnlessBounded: an unless command that runs too long is killed with
// what it started, and a flood of output keeps only its tail.
func TestUnlessBounded(t *testing.T) {
	defer func(d time.Duration) { UnlessTimeout = d }(UnlessTimeout)
	UnlessTimeout = 500 * time.Millisecond
	start := time.Now()
	_, err := evalOne(t, "    unless: 'sleep 1000 | cat'\n")
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("slow unless: %v, want a killed error", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("slow unless ended after %v", d)
	}
	UnlessTimeout = time.Minute
	m, err := evalOne(t, "    unless: 'head -c 50000000 /dev/zero | tr \"\\\\0\" a; echo END; false'\n")
	if err != nil || m == nil {
		t.Fatalf("flooding unless: %v, %v", m, err)
	}
	reason := string(m.Reply.JSON())
	if !strings.Contains(reason, "END") || len(reason) > 3000 {
		t.Errorf("reply is %d bytes, ends %q", len(reason), reason[max(0, len(reason)-40):])
	}
}

func TestTailBuffer(t *testing.T) {
	tb := &tailBuffer{max: 10}
	for i := 0; i < 100; i++ {
		tb.Write([]byte("0123456789abc"))
	}
	tb.Write([]byte("XYZ"))
	if got := string(tb.bytes()); got != "6789abcXYZ" {
		t.Errorf("tail = %q, want the last 10 bytes", got)
	}
	if len(tb.b) > 20 {
		t.Errorf("holds %d bytes", len(tb.b))
	}
}
