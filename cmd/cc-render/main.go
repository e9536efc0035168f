// Command cc-render: see the README.
package main

import (
	"os"
	"runtime/debug"

	"github.com/ccpipe/ccpipe/lib/commands/ccrender"
)

func main() {
	if os.Getenv("GOGC") == "" {
		// A page is written from small pieces: a tighter heap keeps the
		// peak RSS near the runtime's floor for a little CPU.
		debug.SetGCPercent(50)
	}
	os.Exit(ccrender.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
