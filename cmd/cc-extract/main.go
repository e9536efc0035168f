// Command cc-extract: see the README.
package main

import (
	"os"

	"github.com/ccpipe/ccpipe/lib/commands/ccextract"
)

func main() { os.Exit(ccextract.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
