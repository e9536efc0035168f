// Package sequencer runs tasks on a bounded number of goroutines and
// hands their results on one at a time, in the order the tasks were
// added, as gofmt's sequencer releases its output: the work is parallel,
// the output the same whatever the timing (and so fit for golden tests).
// A bounded number of tasks is in flight, so memory stays bounded however
// many are added.
//
// It is the pool of every command that fans out and keeps order (cc-grep's
// search, cc-redact's scan, cc-extract's reader). A task's result is
// handed on when the task ends (Add), when it is added, for a task done
// without a worker (Done: a cached file's facts), or in its turn while
// the task still runs (Stream: a big file's facts taken as they are read,
// so that they need not be held whole).
package sequencer

import (
	"context"
	"sync"
)

// Sequencer runs the tasks of Add and Stream, and calls emit with their
// results and those of Done in the order they were added. Start it, add
// tasks from one goroutine, then Wait: Wait ends every goroutine it
// started.
type Sequencer[T any] struct {
	ctx    context.Context
	cancel context.CancelFunc
	order  chan *task[T]
	work   chan *task[T]
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error // emit's first error
	// done are Done's results not yet queued, by the adding goroutine:
	// handed on together, one hand-off for many.
	done []T
}

// maxDone bounds the results of Done handed on together: emit starts on
// the first while the rest are found.
const maxDone = 64

type task[T any] struct {
	run    func(ctx context.Context, worker int) T // Add's
	stream func(ctx context.Context, worker int)   // Stream's: called even once stopped
	// result is the task's result, the zero value for a task not run;
	// a Stream task's is there from the start.
	result chan T
	batch  []T // Done's results, in the place of result
}

// Start starts workers goroutines (at least one) that run the tasks, and
// one that calls emit with each result in turn. At most ahead tasks per
// worker (at least one) wait for their turn, a run of Done's results
// counting as one; Add, Stream and Done block past that. The first error
// from emit stops the sequencer: the tasks not run yet are not (but for
// Stream's), emit is called no more, and Add, Stream, Done and Wait
// return the error. A cancelled ctx stops it the same way.
func Start[T any](ctx context.Context, workers, ahead int, emit func(T) error) *Sequencer[T] {
	workers = max(1, workers)
	ctx, cancel := context.WithCancel(ctx)
	s := &Sequencer[T]{
		ctx:    ctx,
		cancel: cancel,
		order:  make(chan *task[T], max(1, ahead)*workers),
		work:   make(chan *task[T], workers),
	}
	s.wg.Add(workers + 1)
	for w := range workers {
		go func() {
			defer s.wg.Done()
			for t := range s.work {
				switch {
				case t.stream != nil:
					t.stream(ctx, w)
				case ctx.Err() != nil:
					var zero T
					t.result <- zero // its turn comes, and emits nothing
				default:
					t.result <- t.run(ctx, w)
				}
			}
		}()
	}
	go func() {
		defer s.wg.Done()
		give := func(r T) {
			if ctx.Err() != nil {
				return // drained: nothing is emitted once stopped
			}
			if err := emit(r); err != nil {
				s.mu.Lock()
				s.err = err
				s.mu.Unlock()
				cancel()
			}
		}
		for t := range s.order {
			if t.batch != nil {
				for _, r := range t.batch {
					give(r)
				}
				continue
			}
			give(<-t.result)
		}
	}()
	return s
}

// Add queues a task: run is called on a worker, with the context the
// sequencer stops by and the worker's number (0 to workers-1: a task may
// keep per-worker state, a scanner, in a slice); its result is emitted
// in its turn once run returns. Add blocks while too many tasks wait, and
// returns the error that stopped the sequencer, if it stopped.
func (s *Sequencer[T]) Add(run func(ctx context.Context, worker int) T) error {
	t := &task[T]{run: run, result: make(chan T, 1)}
	if err := s.queue(t); err != nil {
		return err
	}
	select {
	case s.work <- t:
		return nil
	case <-s.ctx.Done():
		var zero T
		t.result <- zero // its turn comes, and emits nothing
		return s.stopped()
	}
}

// Stream queues a task whose result, v, is emitted in its turn while run
// may still go on, on a worker: v is how emit takes what run finds as it
// goes (a queue of their own), so a long task's output is neither held
// whole nor kept waiting for its end. Tasks reach the workers in the
// order they were added, so emit may wait for run: it waits only for the
// tasks added before, which emit has taken. Bounding what the runs of
// the tasks behind queue meanwhile is the caller's (lib/extract's reader
// shares a budget among them). Stream returns the error that stopped the
// sequencer, if it stopped before the task was taken; a task taken has
// its run called even if the sequencer stops, with its context done
// then: run must return soon, and an emit waiting for it needs no other
// way out.
func (s *Sequencer[T]) Stream(v T, run func(ctx context.Context, worker int)) error {
	t := &task[T]{stream: run, result: make(chan T, 1)}
	t.result <- v
	if err := s.queue(t); err != nil {
		return err
	}
	s.work <- t // never dropped: the workers run until Wait, a run ends soon once stopped
	return nil
}

// Done queues the result of a task done without a worker (a cached
// file's facts, found at once), emitted in its turn. Results of Done in a
// row are handed to emit's goroutine together, up to 64 at a time or
// until a task is added or Wait is called: one hand-off for many. Done
// returns the error that stopped the sequencer, if it stopped.
func (s *Sequencer[T]) Done(v T) error {
	if err := s.stopped(); err != nil {
		return err
	}
	if s.done = append(s.done, v); len(s.done) == maxDone {
		return s.flush()
	}
	return nil
}

// queue puts t in line for its turn, after Done's results.
func (s *Sequencer[T]) queue(t *task[T]) error {
	if err := s.flush(); err != nil {
		return err
	}
	select {
	case s.order <- t:
		return nil
	case <-s.ctx.Done():
		return s.stopped()
	}
}

// flush puts Done's results in line.
func (s *Sequencer[T]) flush() error {
	if len(s.done) == 0 {
		return nil
	}
	t := &task[T]{batch: s.done}
	s.done = nil
	select {
	case s.order <- t:
		return nil
	case <-s.ctx.Done():
		return s.stopped()
	}
}

// Wait lets the tasks added finish and be emitted, ends the goroutines
// and returns emit's first error, else the context's error if it was
// cancelled, else nil.
func (s *Sequencer[T]) Wait() error {
	_ = s.flush() // stopped: stopped says so below
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
