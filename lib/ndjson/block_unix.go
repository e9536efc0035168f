//go:build unix

package ndjson

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// blocksLive counts the blocks mapped and not yet freed (for the tests:
// every line read frees its blocks).
var blocksLive atomic.Int64

// allocBlock returns n bytes of anonymous memory outside the Go heap, for a
// piece of a long line: freeBlock gives it back to the system at once,
// where memory the garbage collector frees would stay in the process
// while the line it was copied into is built.
func allocBlock(n int) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return make([]byte, n) // the heap still works, at twice the peak
	}
	blocksLive.Add(1)
	return b
}

// freeBlock frees a block of allocBlock. unix.Munmap frees only what
// unix.Mmap mapped (it looks the slice up): a heap block is left to the
// collector.
func freeBlock(b []byte) {
	if cap(b) > 0 {
		if unix.Munmap(b[:cap(b)]) == nil {
			blocksLive.Add(-1)
		}
	}
}
