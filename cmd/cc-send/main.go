// Command cc-send: see the README.
package main

import (
	"os"

	"github.com/ccpipe/ccpipe/lib/commands/ccsend"
)

func main() { os.Exit(ccsend.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
