package ndjson

import (
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// pipeSize is what GrowPipe asks for: a pipe's default 64 KiB makes the
// two ends of `cc-entries | cc-extract` take turns every 64 KiB; a 1 MiB
// pipe carries one read buffer (fileBufSize) per turn.
const pipeSize = 1 << 20

var pipeMax = sync.OnceValue(func() int {
	b, err := os.ReadFile("/proc/sys/fs/pipe-max-size")
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
})

// GrowPipe raises the buffer of f, when f is a pipe, to 1 MiB or the
// system's pipe-max-size if lower. A failure (an older kernel, the
// user's pipe memory limit) leaves the pipe as it was: it only costs
// speed.
func GrowPipe(f *os.File) {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return
	}
	size := min(pipeSize, pipeMax())
	if size <= 0 {
		return
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		if cur, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0); err == nil && cur < size {
			_, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, size)
		}
	})
}
