// Command cc-profiles lists every Claude Code config dir on the machine.
package main

import (
	"os"

	"github.com/ccpipe/ccpipe/lib/commands/ccprofiles"
)

func main() { os.Exit(ccprofiles.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
