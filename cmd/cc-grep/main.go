// Command cc-grep: see the README.
package main

import (
	"os"

	"github.com/ccpipe/ccpipe/lib/commands/ccgrep"
)

func main() { os.Exit(ccgrep.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
