// Command cc-entries: see the README.
package main

import (
	"os"

	"github.com/ccpipe/ccpipe/lib/commands/ccentries"
)

func main() { os.Exit(ccentries.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
