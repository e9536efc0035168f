package cli

import (
	"io"
	"os"

	"github.com/ccpipe/ccpipe/lib/syncwriter"
)

// IsTerminal reports whether w (Env.Stderr, say) is a terminal: progress
// output is for people, never for a pipe or a log.
func IsTerminal(w io.Writer) bool {
	f, ok := syncwriter.Unwrap(w).(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
