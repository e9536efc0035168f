//go:build !linux

package search

import (
	"errors"
	"os"
)

// Elsewhere plain files are read; mapping is a Linux optimisation.

func mapWindow(*os.File, int64, int) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapWindow([]byte) {}

const mmapSupported = false

func searchMapped(b []byte, fn func([]byte) bool) (bool, error) { return fn(b), nil }
