package cli

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestLateFirstGC: GOGC is raised until the first collection, then 100
// again, so that a big run is paced as usual.
func TestLateFirstGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	lateFirstGC(64 << 20)
	if got := debug.SetGCPercent(-1); got != 1600 {
		t.Fatalf("GOGC after lateFirstGC(64 MB) = %d, want 1600", got)
	}
	debug.SetGCPercent(1600)
	// The finalizer runs on its own goroutine after the collection
	// that finds the sentinel unreachable.
	for i := 0; ; i++ {
		runtime.GC()
		got := debug.SetGCPercent(100)
		if got == 100 {
			break
		}
		if i == 500 {
			t.Fatalf("GOGC still %d after %d collections", got, i)
		}
		debug.SetGCPercent(got)
		time.Sleep(time.Millisecond)
	}
}
