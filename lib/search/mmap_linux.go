package search

import (
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"syscall"
)

// mapWindow maps length bytes of f from off, read-only. Its pages are
// populated at once: one system call sets up the page tables of the whole
// window instead of a page fault every few pages, and the search then
// reads the page cache in place, with no copy into a buffer.
func mapWindow(f *os.File, off int64, length int) ([]byte, error) {
	b, err := syscall.Mmap(int(f.Fd()), off, length, syscall.PROT_READ, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		return nil, err
	}
	_ = syscall.Madvise(b, syscall.MADV_SEQUENTIAL) // a hint only
	return b, nil
}

func unmapWindow(b []byte) { _ = syscall.Munmap(b) }

const mmapSupported = true

// errShrank is a mapped file that got shorter while it was searched: the
// pages past its new end no longer exist.
var errShrank = errors.New("file shrank while it was searched")

// searchMapped calls fn on a mapped window. Touching a page past the end of
// a file that was truncated meanwhile raises SIGBUS; SetPanicOnFault turns
// that into a panic, recovered here as errShrank, instead of a crash.
func searchMapped(b []byte, fn func([]byte) bool) (stop bool, err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if re, ok := r.(runtime.Error); ok {
				if _, fault := re.(interface{ Addr() uintptr }); fault {
					stop, err = false, errShrank
					return
				}
			}
			panic(r)
		}
	}()
	return fn(b), nil
}
