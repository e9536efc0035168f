package search

import (
	"github.com/ccpipe/ccpipe/lib/regular"
	"io"
	"os"
	"syscall"
)

// plainFile is an uncompressed file opened for searching, with bare
// system calls: os.File adds two more per file (a poller registration
// that fails for a regular file, a flags query), which shows over
// thousands of small tool-results files.
type plainFile struct {
	fd        int
	size, off int64 // size is -1 for a file that is not regular
}

func openPlain(path string) (*plainFile, error) {
	var fd int
	var err error
	for {
		// O_NONBLOCK: a FIFO without a writer must not block the open;
		// it is refused below (and the flag does nothing to a regular
		// file's reads).
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		if err := regular.Check(path); err != nil {
			return nil, err // a socket: ENXIO says little
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, regular.Check(path)
	}
	return &plainFile{fd: fd, size: st.Size}, nil
}

// Read reads on to the size the file had when opened (a file growing
// meanwhile is searched as it was then, as a mapped one is), which also
// spares the read that would only find the end.
func (f *plainFile) Read(p []byte) (int, error) {
	if f.size >= 0 {
		if f.off >= f.size {
			return 0, io.EOF
		}
		p = p[:min(int64(len(p)), f.size-f.off)]
	}
	n, err := ignoringEINTR(func() (int, error) { return syscall.Read(f.fd, p) })
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, io.EOF
	}
	f.off += int64(n)
	if f.off == f.size {
		return n, io.EOF
	}
	return n, nil
}

// ReadAt is pread, for going on from a window that could not be mapped.
func (f *plainFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := ignoringEINTR(func() (int, error) { return syscall.Pread(f.fd, p, off) })
	if err != nil {
		return 0, err
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *plainFile) Close() error { return syscall.Close(f.fd) }

func ignoringEINTR(fn func() (int, error)) (int, error) {
	for {
		n, err := fn()
		if err != syscall.EINTR {
			return n, err
		}
	}
}

// handle is the descriptor, for mapping the file.
func (f *plainFile) handle() uintptr { return uintptr(f.fd) }
