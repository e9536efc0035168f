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
