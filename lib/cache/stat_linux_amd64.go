package cache

import (
	"strings"
	"syscall"
	"unsafe"
)

// stat is syscall.Stat with the path's NUL-terminated copy on the stack
// when it fits: syscall.Stat allocates one per call, and a warm search
// stats every file it might read (thousands), keeping nothing of them.
func stat(path string, st *syscall.Stat_t) error {
	var buf [512]byte
	if len(path) >= len(buf) || strings.IndexByte(path, 0) >= 0 {
		return syscall.Stat(path, st) // its own copy, or its EINVAL
	}
	copy(buf[:], path)
	buf[len(path)] = 0
	atFDCWD := -0x64 // as syscall.Stat: fstatat(AT_FDCWD, path, st, 0)
	_, _, e := syscall.Syscall6(syscall.SYS_NEWFSTATAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(st)), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
