// Command gen writes a synthetic Claude Code config dir for the benchmarks:
//
//	go run ./bench/gen -out DIR -size 2GB -sessions 2000 -seed 1
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
