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
