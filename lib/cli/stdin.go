package cli

import (
	"io"
	"os"
)

// HasInput reports whether stdin should be read, by ripgrep's rule: a pipe,
// a regular file or a socket is input; a terminal, /dev/null (cron) or a
// closed descriptor is not. Any reader that is not an *os.File (a test's
// strings.Reader) is input.
func HasInput(r io.Reader) bool {
	if r == nil {
		return false
	}
	f, ok := r.(*os.File)
	if !ok {
		return true
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	m := fi.Mode()
	return m.IsRegular() || m&os.ModeNamedPipe != 0 || m&os.ModeSocket != 0
}
