//go:build !linux

package search

import (
	"os"

	"github.com/ccpipe/ccpipe/lib/regular"
)

// Elsewhere a plain file is an os.File (the bare system calls of the
// Linux version save little there).
type plainFile struct {
	*os.File
	size int64
}

func openPlain(path string) (*plainFile, error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, err
	}
	pf := &plainFile{File: f, size: -1}
	if fi, err := f.Stat(); err == nil {
		pf.size = fi.Size()
	}
	return pf, nil
}

// handle is the descriptor, for mapping the file.
func (f *plainFile) handle() uintptr { return f.Fd() }
