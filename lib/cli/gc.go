package cli

import (
	"os"
	"runtime"
	"runtime/debug"
)

// LateFirstGC lets a process's heap grow to about n bytes before its
// first collection, and paces the ones after at GOGC 100. A warm run
// allocates a few MB in tens of ms: collected from the runtime's 4 MB
// start, it paid for a collection it did not need (cc-grep: 1.5-2 ms of
// 20, cc-sessions 3 of 20). The heap goal's floor is 4 MB times
// GOGC/100 (the Go GC guide), so GOGC is raised to put it at n, and a
// finalizer, which runs after the first collection, puts GOGC back:
// a big run (cc-grep's first index build) keeps the usual pacing above
// n. Nothing is allocated or collected to set it up, as a block of
// heap to raise the floor was (its allocation started a collection).
// A GOGC the user set is left alone. For a command's Run (the process's
// own run), not RunWith: a test's process keeps its own pacing.
func LateFirstGC(n int) {
	if os.Getenv("GOGC") != "" {
		return
	}
	lateFirstGC(n)
}

func lateFirstGC(n int) {
	debug.SetGCPercent(max(100, 100*n/minHeap))
	sentinel := new([16]byte) // big enough not to share a tiny block
	runtime.SetFinalizer(sentinel, func(*[16]byte) { debug.SetGCPercent(100) })
}

// minHeap is the runtime's heap goal floor at GOGC 100.
const minHeap = 4 << 20
