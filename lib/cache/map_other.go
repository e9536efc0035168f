//go:build !linux

package cache

import (
	"errors"
	"os"
)

// Stores are read into memory here (OpenMapped is Open).
func mapFile(*os.File, int64) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapFile([]byte) {}
