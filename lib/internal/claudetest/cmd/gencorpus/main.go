// Command gencorpus regenerates testdata/corpus: a Claude Code config dir
// written by the real CLI (driven by lib/internal/fakeapi scripts), with every
// temp path replaced by a stable one, plus README.md and MANIFEST.md.
//
//	go run ./lib/internal/claudetest/cmd/gencorpus -out testdata/corpus
package main

import (
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }
