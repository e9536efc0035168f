package cli

import (
	"io"
	"os"

	"github.com/ccpipe/ccpipe/lib/syncwriter"
)

// IsTerminal reports whether w (Env.Stderr, say) is a terminal: progress
// output is for people, never for a pipe or a log. /dev/null is a
// character device too, and no one reads it: a cron line's >/dev/null
// must not turn on what is said to a person (an empty result's note).
func IsTerminal(w io.Writer) bool {
	f, ok := syncwriter.Unwrap(w).(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}
