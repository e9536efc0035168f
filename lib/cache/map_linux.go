package cache

import (
	"errors"
	"os"
	"syscall"
)

// mapFile maps the size bytes of f read-only, its pages mapped at once
// (MAP_POPULATE: one call, where a fault per page cost more than the
// read it replaces).
func mapFile(f *os.File, size int64) ([]byte, error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, errors.ErrUnsupported
	}
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
}

func unmapFile(b []byte) { _ = syscall.Munmap(b) }
