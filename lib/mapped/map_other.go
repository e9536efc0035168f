//go:build !(linux || darwin || freebsd)

package mapped

import "errors"

// Memory maps are not wired up here: Next fails at once and callers read.

const pageSize = 4096

func mapWindow(uintptr, int64, int, bool) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapWindow([]byte) {}

func dropPages([]byte) {}

func (*Windows) holds(uintptr) bool { return false }
