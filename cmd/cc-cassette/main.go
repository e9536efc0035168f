// Command cc-cassette imports, verifies, compares and asserts on Blackbox
// cassettes: hash-chained recordings of agent runs.
package main

import (
	"os"

	"github.com/ccpipe/ccpipe/lib/commands/cccassette"
)

func main() { os.Exit(cccassette.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
