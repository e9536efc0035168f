//go:build unix

package cache

import (
	"os"
	"syscall"
)

func devIno(fi os.FileInfo) (uint64, uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino) //nolint:unconvert // int32 on some systems
	}
	return 0, 0
}
