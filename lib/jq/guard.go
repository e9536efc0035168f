package jq

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Guard runs a filter over input after input (every command's --jq)
// under one Budget, each input held to it as Watch holds one evaluation:
// its time, and what it adds to the heap (counted from the heap when the
// watch first sees it running, at most a poll after it started). One
// goroutine watches them all, started by the first Run and ended by
// Stop, so an input costs two atomic stores. Past the budget the input
// running is stopped, and so is every later one: the error wraps
// ErrBudget.
type Guard struct {
	Budget  Budget
	once    sync.Once
	ctx     context.Context
	cancel  context.CancelCauseFunc
	done    chan struct{}
	seq     atomic.Uint64 // inputs started
	running atomic.Bool
}

// DefaultBudget is what one --jq input may take: 10 seconds and 1 GiB
// more live heap than it started with.
var DefaultBudget = Budget{Timeout: 10 * time.Second, MaxHeap: 1 << 30}

// guardPoll is how often a Guard looks.
var guardPoll = 5 * time.Millisecond

// Run is f.RunContext under the guard.
func (g *Guard) Run(f *Filter, v any, emit func(any) error) error {
	g.once.Do(g.start)
	g.seq.Add(1)
	g.running.Store(true)
	defer g.running.Store(false)
	return f.RunContext(g.ctx, v, emit)
}

func (g *Guard) start() {
	g.ctx, g.cancel = context.WithCancelCause(context.Background())
	g.done = make(chan struct{})
	go g.watch(g.done, g.Budget, addressSpaceLimit())
}

// watch is given done: Stop clears the field while it runs.
func (g *Guard) watch(done <-chan struct{}, b Budget, limitAS uint64) {
	t := time.NewTicker(guardPoll)
	defer t.Stop()
	m := b.meter(limitAS)
	var last uint64
	var since time.Time
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			if !g.running.Load() {
				last = 0
				continue
			}
			if s := g.seq.Load(); s != last {
				last, since = s, now
				m.mark()
			} else if b.Timeout > 0 && now.Sub(since) > b.Timeout {
				g.cancel(fmt.Errorf("%w: still running after %v", ErrBudget, b.Timeout))
				return
			}
			if err := m.over(); err != nil {
				g.cancel(err)
				return
			}
		}
	}
}

// Stop ends the watch (a Guard never run needs none).
func (g *Guard) Stop() {
	if g.done != nil {
		close(g.done)
		g.cancel(nil)
		g.done = nil
	}
}
