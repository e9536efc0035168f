//go:build linux || darwin || freebsd

package mapped

import (
	"os"
	"syscall"
	"unsafe"
)

var pageSize = int64(os.Getpagesize())

// mapWindow maps length bytes of fd from off (a page multiple),
// read-only and shared: the page cache's own pages.
func mapWindow(fd uintptr, off int64, length int, populate bool) ([]byte, error) {
	flags := syscall.MAP_SHARED
	if populate {
		flags |= mapPopulate
	}
	return syscall.Mmap(int(fd), off, length, syscall.PROT_READ, flags)
}

func unmapWindow(b []byte) { _ = syscall.Munmap(b) }

// holds reports whether addr lies in the current mapping.
func (w *Windows) holds(addr uintptr) bool {
	if len(w.mem) == 0 {
		return false
	}
	base := uintptr(unsafe.Pointer(&w.mem[0]))
	return addr >= base && addr < base+uintptr(len(w.mem))
}
