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
	m := b.meter(limitAS)
	m.mark()
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
			if err := m.over(); err != nil {
				cancel(err)
				return
			}
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}

// meter is the memory half of a Budget, the one rule for an evaluation
// (Watch) and for each input of a Guard: an evaluation may add MaxHeap to
// the live heap it started with (mark), not hold MaxHeap in all, as the
// heap is the process's (a backtest holds sessions, a command the records
// it keeps, a test binary other tests' garbage); and the address space
// must stay clear of its limit (limitAS, 0 for none). A meter is used by
// one goroutine.
type meter struct {
	max, limitAS, base uint64
	sample             []metrics.Sample
}

func (b Budget) meter(limitAS uint64) *meter {
	return &meter{max: b.MaxHeap, limitAS: limitAS, sample: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}}
}

func (m *meter) heap() uint64 {
	metrics.Read(m.sample)
	return m.sample[0].Value.Uint64()
}

// mark takes the heap now as what an evaluation starts with.
func (m *meter) mark() { m.base = m.heap() }

// over looks once. The runtime reserves address space in large steps: it
// stops while a quarter of the limit is still free.
func (m *meter) over() error {
	if m.max > 0 {
		if heap := m.heap(); heap > m.base && heap-m.base > m.max {
			return fmt.Errorf("%w: used more than %d MiB of memory", ErrBudget, m.max>>20)
		}
	}
	if m.limitAS > 0 {
		if vm := addressSpace(); vm > 0 && vm > m.limitAS-m.limitAS/4 {
			return fmt.Errorf("%w: near the address-space limit (ulimit -v) of %d MiB", ErrBudget, m.limitAS>>20)
		}
	}
	return nil
}
