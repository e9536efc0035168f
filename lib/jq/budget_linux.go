package jq

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// addressSpaceLimit is RLIMIT_AS in bytes, or 0 when unlimited.
func addressSpaceLimit() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur == ^uint64(0) {
		return 0
	}
	return uint64(r.Cur)
}

// addressSpace is this process's virtual size in bytes (Linux), or 0.
func addressSpace() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	pages, _, _ := strings.Cut(string(b), " ")
	n, err := strconv.ParseUint(pages, 10, 64)
	if err != nil {
		return 0
	}
	return n * uint64(os.Getpagesize())
}
