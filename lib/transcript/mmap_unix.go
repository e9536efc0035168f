//go:build linux || darwin || freebsd

package transcript

import (
	"os"
	"syscall"
	"unsafe"
)

// mapping reads a plain file through read-only memory maps, one window at
// a time. A --types run only looks at most bytes once; read(2) copied
// every byte from the page cache first, which was half of that run's CPU
// time. The bytes are the page cache's own, so a line handed on from a
// window must not be kept past the next line (as Line says).
type mapping struct {
	f    *os.File
	size int64 // the file's size when opened: only that much is mapped
	off  int64 // where the next window starts
	win  []byte
}

// newMapping returns a mapping of f, or nil when f is not a regular file
// worth mapping (then it is read as a stream).
func newMapping(f *os.File) *mapping {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() < minMapped {
		return nil
	}
	return &mapping{f: f, size: fi.Size()}
}

// next unmaps the current window and maps the next one. It returns nil
// when the size seen at open has been mapped, or when a map fails: the
// rest of the file is then read from there with read(2).
func (m *mapping) next() []byte {
	m.unmap()
	if m.off >= m.size {
		return nil
	}
	n := min(mapWindow, m.size-m.off)
	// MAP_POPULATE maps the window's pages in one call instead of one
	// fault per few pages.
	win, err := syscall.Mmap(int(m.f.Fd()), m.off, int(n), syscall.PROT_READ, syscall.MAP_SHARED|mapPopulate)
	if err != nil {
		m.size = m.off
		return nil
	}
	m.off += n
	m.win = win
	return win
}

func (m *mapping) unmap() {
	if m.win != nil {
		_ = syscall.Munmap(m.win)
		m.win = nil
	}
}

// holds reports whether addr lies in the current window.
func (m *mapping) holds(addr uintptr) bool {
	if len(m.win) == 0 {
		return false
	}
	base := uintptr(unsafe.Pointer(&m.win[0]))
	return addr >= base && addr < base+uintptr(len(m.win))
}
