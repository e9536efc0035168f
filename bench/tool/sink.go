package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// sinkCmd is a local OTLP/HTTP collector that acknowledges every request
// without decoding it (an empty body is an export response with nothing
// rejected, in protobuf and JSON alike): what cc-otel's bench row exports
// to, so that the time measured is cc-otel's and the loopback's, not a
// collector's. It writes its URL to -url-file, serves until SIGTERM or
// SIGINT, then prints the requests and bytes it took.
func sinkCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("otlp-sink", flag.ContinueOnError)
	urlFile := fs.String("url-file", "", "write the sink's URL here once it listens")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	var reqs, bytes atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		reqs.Add(1)
		bytes.Add(n)
		ct := r.Header.Get("Content-Type")
		if ct == "" {
			ct = "application/x-protobuf"
		}
		w.Header().Set("Content-Type", ct)
		if ct == "application/json" {
			_, _ = w.Write([]byte("{}"))
		}
	})}
	url := "http://" + ln.Addr().String()
	if *urlFile != "" {
		if err := os.WriteFile(*urlFile, []byte(url+"\n"), 0o600); err != nil {
			return err
		}
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() { <-stop; _ = srv.Close() }()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		return err
	}
	_, err = fmt.Fprintf(stdout, "{\"requests\":%d,\"bytes\":%d}\n", reqs.Load(), bytes.Load())
	return err
}
