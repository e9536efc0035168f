// Command cc-sessions: see the README.
package main

import (
	"os"

	"github.com/ccpipe/ccpipe/lib/commands/ccsessions"
)

func main() { os.Exit(ccsessions.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
