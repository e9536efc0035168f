// Command fakeapi serves a scripted fake Anthropic Messages API so that a
// person can drive a real Claude Code by hand:
//
//	go run ./lib/internal/fakeapi/cmd/fakeapi -script turns.yaml -log requests.jsonl
//	ANTHROPIC_BASE_URL=<printed url> ANTHROPIC_API_KEY=sk-ant-test... claude -p hi
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakeapi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	script := fs.String("script", "", "script of turns (YAML or JSON `file`); empty answers every request with short text")
	addr := fs.String("addr", "127.0.0.1:0", "listen `address`")
	logPath := fs.String("log", "", "append every request as a JSON line to `file`")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	sc := &fakeapi.Script{}
	if *script != "" {
		var err error
		if sc, err = fakeapi.LoadScript(*script); err != nil {
			fmt.Fprintf(stderr, "fakeapi: %v\n", err)
			return 1
		}
	}
	srv, err := fakeapi.Start(sc, *addr)
	if err != nil {
		fmt.Fprintf(stderr, "fakeapi: %v\n", err)
		return 1
	}
	defer srv.Close()
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "fakeapi: log: %v\n", err)
			return 1
		}
		defer f.Close()
		srv.SetLog(f)
	}
	fmt.Fprintln(stdout, srv.URL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	fmt.Fprintf(stderr, "fakeapi: %d requests, unused turns %v\n", len(srv.Requests()), srv.Unused())
	return 0
}
