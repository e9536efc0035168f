//go:build linux && !amd64

package cache

import "syscall"

// statUnder is syscall.Stat of dir/rel (of dir when rel is ""); the
// amd64 build keeps the path's copy on the stack.
func statUnder(dir, rel string, st *syscall.Stat_t) error {
	return syscall.Stat(joinUnder(dir, rel), st)
}
