package jq

import (
	"context"
	"errors"
	"fmt"
	"runtime/metrics"
	"time"
)

// Budget bounds one evaluation in time and memory. A jq expression can
// loop for ever (`repeat(1)`) or grow without end (`def f: [f]; f`); in a
// hook the Go runtime's out-of-memory exit would be status 2, which Claude
// Code reads as a deliberate block. A Budget turns both into an error.
type Budget struct {
	Timeout time.Duration // 0: none
	// MaxHeap bounds the live heap; 0: none. Under an address-space
	// limit (ulimit -v) the bound also keeps a headroom below it.
	MaxHeap uint64
}

// ErrBudget is wrapped by the error of an evaluation stopped by its
// Budget.
var ErrBudget = errors.New("stopped")

// budgetPoll is how often the memory watch looks.
const budgetPoll = 2 * time.Millisecond

// Watch returns a context that ends when ctx does, when the timeout
// passes, or when memory goes over the budget; its cause then wraps
// ErrBudget. Call stop when the evaluation is done.
func (b Budget) Watch(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	if b.Timeout > 0 {
		var c2 context.CancelFunc
		ctx, c2 = context.WithTimeoutCause(ctx, b.Timeout, fmt.Errorf("%w: still running after %v", ErrBudget, b.Timeout))
		prev := cancel
		cancel = func(err error) { prev(err); c2() }
	}
	limitAS := addressSpaceLimit()
	if b.MaxHeap == 0 && limitAS == 0 {
		return ctx, func() { cancel(nil) }
	}
	done := make(chan struct{})
	// The heap is the process's: an evaluation may use MaxHeap more than
	// was held when it started (a backtest holds sessions; a test binary
	// holds other tests' garbage), not MaxHeap in all.
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	go func() {
		t := time.NewTicker(budgetPoll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if err := b.overMemory(sample, base, limitAS); err != nil {
				cancel(err)
				return
			}
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}

// overMemory is the memory half of a budget, looked at once: the live
// heap grown past base by more than MaxHeap, or the address space near its limit (limitAS, 0 for
// none). The runtime reserves address space in large steps: it stops
// while a quarter of the limit is still free.
func (b Budget) overMemory(sample []metrics.Sample, base, limitAS uint64) error {
	metrics.Read(sample)
	if heap := sample[0].Value.Uint64(); b.MaxHeap > 0 && heap > base && heap-base > b.MaxHeap {
		return fmt.Errorf("%w: used more than %d MiB of memory", ErrBudget, b.MaxHeap>>20)
	}
	if limitAS > 0 {
		if vm := addressSpace(); vm > 0 && vm > limitAS-limitAS/4 {
			return fmt.Errorf("%w: near the address-space limit (ulimit -v) of %d MiB", ErrBudget, limitAS>>20)
		}
	}
	return nil
}
