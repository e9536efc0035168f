// Command cc-redact masks secrets in Claude Code records, or finds them.
package main

import (
	"os"

	"github.com/ccpipe/ccpipe/lib/commands/ccredact"
)

func main() { os.Exit(ccredact.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
