package search

import (
	"context"
	"sync"
	"sync/atomic"
)

// Job is one session to search. Data travels with it to the emit callback.
type Job struct {
	TranscriptPath string
	Data           any
}

// Pipeline searches sessions on several goroutines and hands the results
// back in the order the jobs were added, as gofmt's sequencer does: the
// output is the same whatever the timing. At most 4 jobs per worker are in
// flight, so memory stays bounded however long the input is.
type Pipeline struct {
	ctx    context.Context
	cancel context.CancelFunc
	order  chan *pending
	work   chan *pending
	wg     sync.WaitGroup
	err    error // emit's first error, read after wg.Wait
}

type pending struct {
	job  Job
	done chan Result
}

// Start starts workers scanners and the goroutine that calls emit, one
// result at a time in job order. An error from emit stops the pipeline:
// Add and Wait then return it.
func (s *Searcher) Start(ctx context.Context, workers int, emit func(Job, Result) error) *Pipeline {
	workers = max(1, workers)
	ctx, cancel := context.WithCancel(ctx)
	p := &Pipeline{
		ctx:    ctx,
		cancel: cancel,
		order:  make(chan *pending, 4*workers),
		work:   make(chan *pending),
	}
	p.wg.Add(workers + 1)
	for range workers {
		go func() {
			defer p.wg.Done()
			sc := s.NewScanner()
			for pd := range p.work {
				pd.done <- sc.answer(ctx, pd.job.TranscriptPath)
			}
		}()
	}
	go func() {
		defer p.wg.Done()
		for pd := range p.order {
			r := <-pd.done
			if p.err == nil && ctx.Err() == nil {
				if err := emit(pd.job, r); err != nil {
					p.err = err
					cancel()
				}
			}
		}
	}()
	return p
}

// Add queues one job. It blocks while too many jobs are in flight and
// returns an error once the pipeline has stopped.
func (p *Pipeline) Add(j Job) error {
	pd := &pending{job: j, done: make(chan Result, 1)}
	select {
	case p.order <- pd:
	case <-p.ctx.Done():
		return p.ctx.Err()
	}
	select {
	case p.work <- pd:
		return nil
	case <-p.ctx.Done():
		pd.done <- Result{} // unblock the emitter; it emits nothing now
		return p.ctx.Err()
	}
}

// Wait lets the queued jobs finish and returns emit's first error, else
// the context's error if it was cancelled.
func (p *Pipeline) Wait() error {
	close(p.order)
	close(p.work)
	p.wg.Wait()
	defer p.cancel()
	if p.err != nil {
		return p.err
	}
	return p.ctx.Err()
}

// SearchAll searches jobs known up front on workers goroutines that take
// the next job as they become free, and calls emit for each result, one
// at a time, in the order the searches end. It suits a caller that orders
// the results itself: no goroutine hands jobs or results over, so none
// waits on another. The first error from emit stops the search and is
// returned, else the context's error if it was cancelled.
func (s *Searcher) SearchAll(ctx context.Context, workers int, jobs []Job, emit func(Job, Result) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next atomic.Int64
		mu   sync.Mutex
		err  error
		wg   sync.WaitGroup
	)
	for range min(max(1, workers), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := s.NewScanner()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) || ctx.Err() != nil {
					return
				}
				r := sc.answer(ctx, jobs[i].TranscriptPath)
				mu.Lock()
				if err == nil && ctx.Err() == nil {
					if err = emit(jobs[i], r); err != nil {
						cancel()
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err != nil {
		return err
	}
	return ctx.Err()
}
