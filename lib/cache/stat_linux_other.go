//go:build linux && !amd64

package cache

import "syscall"

// stat is syscall.Stat (the amd64 build keeps the path's copy on the
// stack).
func stat(path string, st *syscall.Stat_t) error { return syscall.Stat(path, st) }
