// Command cc-hook: see the README.
package main

import (
	"os"

	"github.com/ccpipe/ccpipe/lib/commands/cchook"
)

func main() { os.Exit(cchook.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
