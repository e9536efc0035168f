package cache

import (
	"strings"
	"syscall"
	"unsafe"
)

// statUnder is syscall.Stat of dir/rel (of dir when rel is "") with the
// path's NUL-terminated copy on the stack when it fits: syscall.Stat
// allocates one per call, and a warm search stats every file it might
// read (thousands), keeping nothing of them.
func statUnder(dir, rel string, st *syscall.Stat_t) error {
	var buf [512]byte
	n := len(dir)
	if rel != "" {
		n += 1 + len(rel)
	}
	if n >= len(buf) || strings.IndexByte(dir, 0) >= 0 || strings.IndexByte(rel, 0) >= 0 {
		return syscall.Stat(joinUnder(dir, rel), st) // its own copy, or its EINVAL
	}
	copy(buf[:], dir)
	if rel != "" {
		buf[len(dir)] = '/'
		copy(buf[len(dir)+1:], rel)
	}
	buf[n] = 0
	atFDCWD := -0x64 // as syscall.Stat: fstatat(AT_FDCWD, path, st, 0)
	_, _, e := syscall.Syscall6(syscall.SYS_NEWFSTATAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(st)), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
