//go:build unix

package ndjson

import (
	"sync/atomic"
	"unsafe"

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
		return makeLong(n) // the heap still works, at twice the peak
	}
	hugePages(b)
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

// hugeMin is the size from which a long line's memory is asked for in
// huge pages: a 2 MiB page needs a 2 MiB-aligned stretch inside it.
const hugeMin = 4 << 20

// makeLong is make([]byte, n) for a long line's memory: from hugeMin up
// its pages are asked for as huge pages (hugePages).
func makeLong(n int) []byte {
	b := make([]byte, n)
	hugePages(b)
	return b
}

// hugePages asks the kernel (madvise MADV_HUGEPAGE, where transparent
// huge pages are "madvise") to back b's fresh pages 2 MiB at a time: each
// 4 KiB page a long line is copied into otherwise costs a fault of its
// own, and in a VM one such fault costs 10-40 µs, so that a 100 MB line
// spent more time faulting in its memory than reading it. A hint: the
// bytes are the same, and where it is refused the pages fault as before.
func hugePages(b []byte) {
	if len(b) < hugeMin {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	page := uintptr(unix.Getpagesize())
	start := (p + page - 1) &^ (page - 1)
	end := (p + uintptr(len(b))) &^ (page - 1)
	if end > start {
		_ = unix.Madvise(b[start-p:end-p], unix.MADV_HUGEPAGE)
	}
}
