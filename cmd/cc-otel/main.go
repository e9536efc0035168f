// Command cc-otel: see the README.
package main

import (
	"os"

	"github.com/ccpipe/ccpipe/lib/commands/ccotel"
)

func main() { os.Exit(ccotel.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
