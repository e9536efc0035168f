package sequencer

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

var errStop = errors.New("stop")

// TestSequencer: results come in Add's order whatever the timing; an
// error from emit or a cancelled context stops the rest (no task runs
// after it is seen, emit is called no more) and is what Add and Wait
// return; a worker runs one task at a time; no goroutine outlives Wait.
func TestSequencer(t *testing.T) {
	tests := []struct {
		name          string
		workers, n    int
		stopAt        int // emit fails at this result (-1: never)
		cancelAt      int // the caller cancels after this many results (-1: never)
		wantEmitted   int
		wantErr       error
		wantRunsUnder int // runs started, at most (0: n)
	}{
		{name: "order, one worker", workers: 1, n: 50, stopAt: -1, cancelAt: -1, wantEmitted: 50},
		{name: "order, many workers", workers: 8, n: 500, stopAt: -1, cancelAt: -1, wantEmitted: 500},
		{name: "workers 0 is one", workers: 0, n: 10, stopAt: -1, cancelAt: -1, wantEmitted: 10},
		{name: "nothing added", workers: 4, n: 0, stopAt: -1, cancelAt: -1, wantEmitted: 0},
		// An error at result 10 stops the sequencer: 10 emitted before it,
		// and at most the tasks in flight then (ahead*workers queued,
		// workers running) were run beyond it.
		{name: "emit error stops the rest", workers: 4, n: 1000, stopAt: 10, cancelAt: -1, wantEmitted: 10,
			wantErr: errStop, wantRunsUnder: 11 + 2*4 + 4 + 1},
		{name: "cancelled", workers: 4, n: 1000, stopAt: -1, cancelAt: 5, wantEmitted: 5,
			wantErr: context.Canceled, wantRunsUnder: 5 + 2*4 + 4 + 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var got []int
			var runs atomic.Int64
			busy := make([]atomic.Bool, max(1, tt.workers))
			s := Start(ctx, tt.workers, 2, func(i int) error {
				if i == tt.stopAt {
					return errStop
				}
				got = append(got, i)
				if len(got) == tt.cancelAt {
					cancel()
				}
				return nil
			})
			var addErr error
			for i := range tt.n {
				err := s.Add(func(ctx context.Context, w int) int {
					runs.Add(1)
					if w < 0 || w >= len(busy) || !busy[w].CompareAndSwap(false, true) {
						t.Errorf("worker %d: out of range or running two tasks", w)
						return i
					}
					defer busy[w].Store(false)
					time.Sleep(time.Duration(rand.IntN(100)) * time.Microsecond)
					return i
				})
				if err != nil {
					addErr = err
					break
				}
			}
			err := s.Wait()
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("Wait: %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr != nil && !errors.Is(addErr, tt.wantErr) {
				t.Errorf("Add after the stop: %v, want %v", addErr, tt.wantErr)
			}
			if len(got) != tt.wantEmitted {
				t.Errorf("emitted %d, want %d", len(got), tt.wantEmitted)
			}
			for i, v := range got {
				if v != i {
					t.Fatalf("result %d is task %d: out of order", i, v)
				}
			}
			if limit := tt.wantRunsUnder; limit > 0 && runs.Load() >= int64(limit) {
				t.Errorf("%d tasks run after the stop, want under %d", runs.Load(), limit)
			}
			// Every goroutine Start made has returned.
			for i := 0; runtime.NumGoroutine() > before; i++ {
				if i == 100 {
					t.Fatalf("goroutines: %d after Wait, %d before", runtime.NumGoroutine(), before)
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
}

// TestAddBlocks: Add waits while ahead*workers tasks wait for their turn
// (the first task holding it), so memory stays bounded.
func TestAddBlocks(t *testing.T) {
	release := make(chan struct{})
	s := Start(context.Background(), 2, 3, func(int) error { return nil })
	var added atomic.Int64
	go func() {
		for i := range 100 {
			_ = s.Add(func(context.Context, int) int {
				if i == 0 {
					<-release
				}
				return i
			})
			added.Add(1)
		}
	}()
	time.Sleep(50 * time.Millisecond)
	// Queued: 3*2 waiting their turn, plus one Add blocked handing its
	// task to a worker, never the 100.
	if n := added.Load(); n > 3*2+1 {
		t.Errorf("%d tasks added while the first held its turn, want at most %d", n, 3*2+1)
	}
	close(release)
	for added.Load() < 100 {
		time.Sleep(time.Millisecond)
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestDoneAndStream: results of Done (no worker) and of Stream (handed
// on while the task runs) come in the order added among Add's, whatever
// the timing; a Stream task's result reaches emit while it runs (its
// run gives its items through an unbuffered channel that only emit
// reads: handed on at its end, it would never end); an emit error or a
// cancellation stops the rest, every Stream task taken still has its run
// called, and that run returns once the context is done; no goroutine
// outlives Wait.
func TestDoneAndStream(t *testing.T) {
	tests := []struct {
		name        string
		workers     int
		pattern     string // per task, in turn: a Add, d Done, s Stream
		n           int
		stopAt      int // emit fails at this task's result (-1: never)
		cancelAt    int // the caller cancels at this task's result, which waits no more (-1: never)
		wantEmitted int
		wantErr     error
	}{
		{name: "done only, over a batch", workers: 2, pattern: "d", n: 3*maxDone + 5, stopAt: -1, cancelAt: -1, wantEmitted: 3*maxDone + 5},
		{name: "stream only, one worker", workers: 1, pattern: "s", n: 40, stopAt: -1, cancelAt: -1, wantEmitted: 40},
		{name: "mixed, one worker", workers: 1, pattern: "addsdadss", n: 300, stopAt: -1, cancelAt: -1, wantEmitted: 300},
		{name: "mixed, many workers", workers: 6, pattern: "sddddasdsa", n: 1000, stopAt: -1, cancelAt: -1, wantEmitted: 1000},
		{name: "emit error at a stream", workers: 4, pattern: "sad", n: 600, stopAt: 30, cancelAt: -1, wantEmitted: 30, wantErr: errStop},
		{name: "emit error at a done", workers: 4, pattern: "sdd", n: 600, stopAt: 31, cancelAt: -1, wantEmitted: 31, wantErr: errStop},
		{name: "cancelled in a stream", workers: 3, pattern: "dsa", n: 600, stopAt: -1, cancelAt: 40, wantEmitted: 40, wantErr: context.Canceled},
	}
	type result struct {
		i     int
		items chan int // a Stream task's, given by its run as it goes
	}
	const items = 3
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var got []int
			s := Start(ctx, tt.workers, 2, func(r result) error {
				if r.i == tt.stopAt {
					return errStop
				}
				if r.i == tt.cancelAt {
					cancel()
					return nil
				}
				if r.items != nil {
					k := 0
					for v := range r.items {
						if v != r.i*items+k {
							t.Errorf("task %d: item %d is %d", r.i, k, v)
						}
						k++
					}
					if k != items {
						t.Errorf("task %d: %d items, want %d", r.i, k, items)
					}
				}
				got = append(got, r.i)
				return nil
			})
			var taken, runs atomic.Int64 // Stream tasks
			var addErr error
			for i := range tt.n {
				var err error
				switch tt.pattern[i%len(tt.pattern)] {
				case 'a':
					err = s.Add(func(context.Context, int) result {
						time.Sleep(time.Duration(rand.IntN(50)) * time.Microsecond)
						return result{i: i}
					})
				case 'd':
					err = s.Done(result{i: i})
				case 's':
					ch := make(chan int)
					err = s.Stream(result{i: i, items: ch}, func(ctx context.Context, w int) {
						runs.Add(1)
						defer close(ch)
						if w < 0 || w >= max(1, tt.workers) {
							t.Errorf("worker %d out of range", w)
						}
						for k := range items {
							select {
							case ch <- i*items + k:
							case <-ctx.Done():
								return
							}
						}
					})
					if err == nil {
						taken.Add(1)
					}
				}
				if err != nil {
					addErr = err
					break
				}
			}
			err := s.Wait()
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("Wait: %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr != nil && !errors.Is(addErr, tt.wantErr) {
				t.Errorf("adding after the stop: %v, want %v", addErr, tt.wantErr)
			}
			if len(got) != tt.wantEmitted {
				t.Errorf("emitted %d, want %d", len(got), tt.wantEmitted)
			}
			for i, v := range got {
				if v != i {
					t.Fatalf("result %d is task %d: out of order", i, v)
				}
			}
			if runs.Load() != taken.Load() {
				t.Errorf("%d Stream tasks taken, %d runs", taken.Load(), runs.Load())
			}
			for i := 0; runtime.NumGoroutine() > before; i++ {
				if i == 100 {
					t.Fatalf("goroutines: %d after Wait, %d before", runtime.NumGoroutine(), before)
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
}
