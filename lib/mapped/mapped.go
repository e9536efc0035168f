// Package mapped reads a file through read-only memory maps, one window
// of a few MiB at a time: the reader then sees the page cache in place,
// with no copy into a buffer, and its resident memory stays bounded
// whatever the file's size. A file cut shorter while it is mapped makes
// the next access to the gone pages fault; Guard turns that into
// ErrShrank instead of a crash.
package mapped

import (
	"errors"
	"io"
	"runtime/debug"
)

// DefaultWindow is how many new bytes a window holds unless told
// otherwise: large enough that the map calls cost nothing, small enough
// that the memory mapped stays a few MiB.
const DefaultWindow = 4 << 20

// ErrShrank is the error of a read of a mapped file that got shorter
// meanwhile: the pages past its new end no longer exist.
var ErrShrank = errors.New("file shrank while it was read")

// Options tell how a file is mapped.
type Options struct {
	// Window is how many new bytes each window holds (DefaultWindow when
	// 0); the last one holds what is left.
	Window int64
	// Overlap is how many bytes before its new bytes each window repeats,
	// so that what is cut by a window boundary is seen whole.
	Overlap int
	// Populate maps a window's pages in one call (MAP_POPULATE, Linux)
	// instead of by the faults of the first reads: cheaper when every
	// byte is read, dearer for a reader that may stop early.
	Populate bool
}

// Windows maps the first size bytes of a file window after window.
type Windows struct {
	fd   uintptr
	size int64
	opts Options
	pos  int64  // where the next window's new bytes start
	mem  []byte // the current mapping, from a page boundary
	// rng is the mapping of Range, from a page boundary, and skip the
	// bytes before the range in it.
	rng  []byte
	skip int
}

// New returns the windows of the first size bytes (its size when
// opened: a file growing meanwhile is mapped as it was) of the open file
// fd, which must stay open until Close.
func New(fd uintptr, size int64, opts Options) *Windows {
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	return &Windows{fd: fd, size: size, opts: opts}
}

// Next unmaps the current window and maps the next one. It returns the
// window's bytes, the first head of which are the overlap repeated from
// before, valid until the following call to Next or Close. At the size
// given to New, it returns io.EOF; when a map fails (or maps are not used
// on this system), the error, and Pos tells where to go on reading.
func (w *Windows) Next() (b []byte, head int, err error) {
	w.unmap()
	if w.pos >= w.size {
		return nil, 0, io.EOF
	}
	start := max(0, w.pos-int64(w.opts.Overlap))
	end := min(w.size, w.pos+w.opts.Window)
	off := start &^ (pageSize - 1)
	mem, err := mapWindow(w.fd, off, int(end-off), w.opts.Populate)
	if err != nil {
		return nil, 0, err
	}
	w.mem = mem
	head = int(w.pos - start)
	w.pos = end
	return mem[start-off:], head, nil
}

// Pos is the offset in the file of the first byte that no window has
// handed on as new yet: where reading goes on after Next fails.
func (w *Windows) Pos() int64 { return w.pos }

// Close unmaps the current window and the range.
func (w *Windows) Close() error {
	w.unmap()
	w.Unrange()
	return nil
}

// Range maps the n bytes at off in place (populated), apart from the
// windows: a long line seen across several windows, handed on whole
// without a copy. They stay valid until Unrange or Close (Next leaves
// them); a range past the size given to New is refused.
func (w *Windows) Range(off, n int64) ([]byte, error) {
	w.Unrange()
	if off < 0 || n <= 0 || off+n > w.size {
		return nil, errOutside
	}
	start := off &^ (pageSize - 1)
	mem, err := mapWindow(w.fd, start, int(off+n-start), true)
	if err != nil {
		return nil, err
	}
	w.rng, w.skip = mem, int(off-start)
	return mem[w.skip:], nil
}

var errOutside = errors.New("range outside the mapped size")

// Drop tells that the range's first n bytes are no longer read: their
// whole pages leave the process's memory (the page cache keeps them), so
// that copying a range out costs its size once, not twice.
func (w *Windows) Drop(n int) {
	if end := (w.skip + n) &^ int(pageSize-1); w.rng != nil && end > 0 {
		dropPages(w.rng[:min(end, len(w.rng))])
	}
}

// Unrange unmaps the range.
func (w *Windows) Unrange() {
	if w.rng != nil {
		unmapWindow(w.rng)
		w.rng, w.skip = nil, 0
	}
}

func (w *Windows) unmap() {
	if w.mem != nil {
		unmapWindow(w.mem)
		w.mem = nil
	}
}

// Guard calls fn, which reads the current window. Touching a page past
// the end of a file truncated meanwhile raises SIGBUS:
// debug.SetPanicOnFault turns that into a panic, recovered here as
// ErrShrank when the fault lies in the current window (any other panic
// goes on).
func (w *Windows) Guard(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			fault, ok := p.(interface{ Addr() uintptr })
			if !ok || !w.holds(fault.Addr()) {
				panic(p)
			}
			err = ErrShrank
		}
	}()
	return fn()
}
