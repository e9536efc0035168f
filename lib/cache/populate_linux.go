package cache

import "syscall"

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14).
const madvPopulateWrite = 23

// populate asks the kernel to back b's pages at once: where a fresh page
// costs a fault of its own (over 10 µs in some VMs), one call for a
// store of megabytes is a good part of a warm run. Best effort: an older
// kernel refuses, and the pages fault in as before.
func populate(b []byte) {
	if len(b) >= 1<<16 {
		_ = syscall.Madvise(b, madvPopulateWrite)
	}
}
