package search

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/ccpipe/ccpipe/lib/sequencer"
)

// Job is one session to search. Data travels with it to the emit callback.
type Job struct {
	TranscriptPath string
	Data           any
}

// Pipeline searches sessions on several goroutines and hands the results
// back in the order the jobs were added (lib/sequencer): the output is the
// same whatever the timing. At most 4 jobs per worker are in flight, so
// memory stays bounded however long the input is.
type Pipeline struct {
	seq        *sequencer.Sequencer[jobResult]
	scanners   []*Scanner // one per worker, made on its first job
	newScanner func() *Scanner
}

type jobResult struct {
	job Job
	r   Result
}

// Start starts workers scanners and the goroutine that calls emit, one
// result at a time in job order. An error from emit stops the pipeline:
// Add and Wait then return it.
func (s *Searcher) Start(ctx context.Context, workers int, emit func(Job, Result) error) *Pipeline {
	workers = max(1, workers)
	p := &Pipeline{scanners: make([]*Scanner, workers)}
	p.seq = sequencer.Start(ctx, workers, 4, func(jr jobResult) error { return emit(jr.job, jr.r) })
	p.newScanner = s.NewScanner
	return p
}

// Add queues one job. It blocks while too many jobs are in flight and
// returns an error once the pipeline has stopped.
func (p *Pipeline) Add(j Job) error {
	return p.seq.Add(func(ctx context.Context, w int) jobResult {
		if p.scanners[w] == nil {
			p.scanners[w] = p.newScanner()
		}
		return jobResult{j, p.scanners[w].answer(ctx, j.TranscriptPath)}
	})
}

// Wait lets the queued jobs finish and returns emit's first error, else
// the context's error if it was cancelled.
func (p *Pipeline) Wait() error { return p.seq.Wait() }

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
