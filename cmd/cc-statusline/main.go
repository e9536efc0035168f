// Command cc-statusline: see the README.
package main

import (
	"os"

	"github.com/ccpipe/ccpipe/lib/commands/ccstatusline"
)

func main() { os.Exit(ccstatusline.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
