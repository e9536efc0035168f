// Package sequencer runs tasks on a bounded number of goroutines and
// hands their results on one at a time, in the order the tasks were
// added, as gofmt's sequencer releases its output: the work is parallel,
// the output the same whatever the timing (and so fit for golden tests).
// A bounded number of tasks is in flight, so memory stays bounded however
// many are added.
//
// It is the pool of every command that fans out and keeps order (cc-grep's
// search, cc-redact's scan). A pool whose consumer takes a task's output
// while the task still runs (lib/extract's streaming reader, which bounds
// the bytes a big file queues) is another shape, not this one.
package sequencer

import (
	"context"
	"sync"
)

// Sequencer runs the tasks of Add and calls emit with their results in
// Add's order. Start it, Add tasks from one goroutine, then Wait: Wait
// ends every goroutine it started.
type Sequencer[T any] struct {
	ctx    context.Context
	cancel context.CancelFunc
	order  chan *task[T]
	work   chan *task[T]
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error // emit's first error
}

type task[T any] struct {
	run  func(ctx context.Context, worker int) T
	done chan T // the result, or the zero value for a task not run
}

// Start starts workers goroutines (at least one) that run the tasks, and
// one that calls emit with each result in turn. At most ahead tasks per
// worker (at least one) wait for their turn; Add blocks past that. The
// first error from emit stops the sequencer: the tasks not run yet are
// not, emit is called no more, and Add and Wait return the error. A
// cancelled ctx stops it the same way.
func Start[T any](ctx context.Context, workers, ahead int, emit func(T) error) *Sequencer[T] {
	workers = max(1, workers)
	ctx, cancel := context.WithCancel(ctx)
	s := &Sequencer[T]{
		ctx:    ctx,
		cancel: cancel,
		order:  make(chan *task[T], max(1, ahead)*workers),
		work:   make(chan *task[T]),
	}
	s.wg.Add(workers + 1)
	for w := range workers {
		go func() {
			defer s.wg.Done()
			for t := range s.work {
				if ctx.Err() != nil {
					var zero T
					t.done <- zero
					continue
				}
				t.done <- t.run(ctx, w)
			}
		}()
	}
	go func() {
		defer s.wg.Done()
		for t := range s.order {
			r := <-t.done
			if ctx.Err() != nil {
				continue // drained: nothing is emitted once stopped
			}
			if err := emit(r); err != nil {
				s.mu.Lock()
				s.err = err
				s.mu.Unlock()
				cancel()
			}
		}
	}()
	return s
}

// Add queues a task: run is called on a worker, with the context the
// sequencer stops by and the worker's number (0 to workers-1: a task may
// keep per-worker state, a scanner, in a slice). Add blocks while too many
// tasks wait, and returns the error that stopped the sequencer, if it
// stopped.
func (s *Sequencer[T]) Add(run func(ctx context.Context, worker int) T) error {
	t := &task[T]{run: run, done: make(chan T, 1)}
	select {
	case s.order <- t:
	case <-s.ctx.Done():
		return s.stopped()
	}
	select {
	case s.work <- t:
		return nil
	case <-s.ctx.Done():
		var zero T
		t.done <- zero // its turn comes, and emits nothing
		return s.stopped()
	}
}

// Wait lets the tasks added finish and be emitted, ends the goroutines
// and returns emit's first error, else the context's error if it was
// cancelled, else nil.
func (s *Sequencer[T]) Wait() error {
	close(s.order)
	close(s.work)
	s.wg.Wait()
	defer s.cancel()
	return s.stopped()
}

// stopped is emit's first error, else the context's.
func (s *Sequencer[T]) stopped() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	return s.ctx.Err()
}
