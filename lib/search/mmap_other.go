//go:build !linux

package search

import (
	"errors"
	"os"
)

// Elsewhere a plain file is an os.File and is read; mapping is a Linux
// optimisation.
type plainFile struct {
	*os.File
	size int64
}

func openPlain(path string) (*plainFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	pf := &plainFile{File: f, size: -1}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		pf.size = fi.Size()
	}
	return pf, nil
}

func (*plainFile) mapWindow(int64, int) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapWindow([]byte) {}

func searchMapped(fn func() bool) (bool, error) { return fn(), nil }
