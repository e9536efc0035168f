// Command cc-grep: see the README.
package main

import (
	"os"
	"runtime"

	"github.com/ccpipe/ccpipe/lib/commands/ccgrep"
)

func main() {
	var floor []byte
	if os.Getenv("GOGC") == "" {
		// A warm search from the index allocates a few tens of MB (the
		// index's stores decoded, the listing) and is over in tens of
		// ms: collected from the runtime's 4 MB start, it pays for
		// 15-20% of its CPU in the GC. An untouched block of heap (no
		// pointers, never written: no memory behind it) sets the heap
		// goal's floor at about twice its size, so such a run is not
		// collected at all, and a bigger one (the first build) keeps the
		// usual GOGC 100 pacing above it.
		floor = make([]byte, heapFloor)
	}
	code := ccgrep.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	runtime.KeepAlive(floor)
	os.Exit(code)
}

// heapFloor: half the heap a run may grow to before its first collection.
const heapFloor = 32 << 20
