// Command cc-hook: see the README.
package main

import (
	"os"
	"runtime/debug"

	"github.com/ccpipe/ccpipe/lib/commands/cchook"
)

func main() {
	// The GC works harder near this bound instead of growing the heap
	// towards an out-of-memory exit (status 2, a block to Claude Code).
	debug.SetMemoryLimit(cchook.MemoryLimit)
	os.Exit(cchook.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
