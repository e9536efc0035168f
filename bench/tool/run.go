package main

import (
	"fmt"
	"io"
)

const usage = `usage: tool time [-in FILE] [-out FILE] [-err FILE] -- COMMAND [ARG...]
       tool check-grep -planted planted.json -query NAME < cc-grep-output
       tool check-usage -expected expected-usage.json -kind ccextract|ccusage [-scope all|main] < output
       tool count-lines FILE...
       tool report -results results.ndjson -out RESULTS.md
       tool secret-patterns   (cc-redact's rules as ripgrep patterns, one per line)
       tool otlp-sink -url-file FILE   (an OTLP/HTTP collector that acknowledges all, until SIGTERM)`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "time":
		err = timeCmd(args[1:], stdout)
	case "check-grep":
		err = checkGrepCmd(args[1:], stdin, stdout)
	case "check-usage":
		err = checkUsageCmd(args[1:], stdin, stdout)
	case "count-lines":
		err = countLinesCmd(args[1:], stdout)
	case "report":
		err = reportCmd(args[1:], stdout)
	case "secret-patterns":
		err = secretPatternsCmd(stdout)
	case "otlp-sink":
		err = sinkCmd(args[1:], stdout)
	default:
		fmt.Fprintln(stderr, usage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "bench tool %s: %v\n", args[0], err)
		return 1
	}
	return 0
}
