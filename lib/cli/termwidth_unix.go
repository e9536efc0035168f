//go:build unix

package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// termWidth is the terminal's width in columns, 0 when unknown.
func termWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
