//go:build linux || darwin || freebsd

package mapped

import (
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
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

// dropPages takes the mapped pages of b (page-aligned) out of the
// process's memory; read again, they map back from the page cache.
func dropPages(b []byte) { _ = unix.Madvise(b, unix.MADV_DONTNEED) }

// holds reports whether addr lies in the current mapping or the range.
func (w *Windows) holds(addr uintptr) bool {
	return inside(w.mem, addr) || inside(w.rng, addr)
}

func inside(mem []byte, addr uintptr) bool {
	if len(mem) == 0 {
		return false
	}
	base := uintptr(unsafe.Pointer(&mem[0]))
	return addr >= base && addr < base+uintptr(len(mem))
}
