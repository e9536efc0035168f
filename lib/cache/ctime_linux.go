package cache

import (
	"os"
	"syscall"
)

// ctimeOf is the file's status change time, which a rewrite cannot set
// back (touch -r and cp -p set the mtime, never the ctime).
func ctimeOf(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Sec*1e9 + st.Ctim.Nsec //nolint:unconvert
	}
	return 0
}
