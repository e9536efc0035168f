package jq

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestWatchCountsFromStart: Watch's memory budget is what the evaluation
// adds to the heap, not the process's whole heap: a backtest holding
// sessions, or a test binary holding other tests' garbage, stopped a
// rule's `if` with "used more than 256 MiB" (seen in CI).
func TestWatchCountsFromStart(t *testing.T) {
	held := make([]byte, 300<<20)
	for i := 0; i < len(held); i += 4096 {
		held[i] = 1
	}
	ctx, stop := Budget{MaxHeap: 64 << 20}.Watch(context.Background())
	time.Sleep(50 * time.Millisecond)
	if err := context.Cause(ctx); err != nil {
		t.Errorf("a budget of 64 MiB with 300 MiB held before it started: %v", err)
	}
	stop()
	runtime.KeepAlive(held)
}

// TestGuardCountsFromStart: a Guard holds each --jq input to the same
// rule as Watch, what it adds to the heap: a command that holds 300 MiB
// of its own (records kept for --unique, a test binary's garbage) has an
// input of a 64 MiB budget stopped by the whole heap's rule.
func TestGuardCountsFromStart(t *testing.T) {
	held := make([]byte, 300<<20)
	for i := 0; i < len(held); i += 4096 {
		held[i] = 1
	}
	f, err := Compile(".", nil)
	if err != nil {
		t.Fatal(err)
	}
	g := &Guard{Budget: Budget{MaxHeap: 64 << 20}}
	defer g.Stop()
	// The input is running while its output is taken: the guard looks
	// at it about ten times.
	err = g.Run(f, 1, func(any) error { time.Sleep(50 * time.Millisecond); return nil })
	if err == nil {
		err = context.Cause(g.ctx)
	}
	if err != nil {
		t.Errorf("an input of a 64 MiB budget with 300 MiB held before it started: %v", err)
	}
	runtime.KeepAlive(held)
}
