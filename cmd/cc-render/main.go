// Command cc-render: see the README.
package main

import (
	"os"

	"github.com/ccpipe/ccpipe/lib/commands/ccrender"
)

func main() { os.Exit(ccrender.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
