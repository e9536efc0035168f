// Command tool holds the Go helpers of bench/run: timing with peak RSS,
// the correctness checks, and the RESULTS.md report.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
