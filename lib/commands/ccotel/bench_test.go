package ccotel

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cli"
)

// BenchmarkExport runs cc-otel in-process over the transcripts at
// $CCOTEL_BENCH_CORPUS (a bench/gen projects dir; skipped without one):
// dry (the OTLP JSON to a discarded writer) and to a local collector that
// acknowledges every request (http/protobuf), each from a fresh ledger.
// A run before the timed ones fills the event cache: the timed runs are
// warm. -cpuprofile says where the time goes; it covers that first run
// too, unless $CCOTEL_BENCH_CACHE names a cache dir a run filled before.
func BenchmarkExport(b *testing.B) {
	dir := os.Getenv("CCOTEL_BENCH_CORPUS")
	if dir == "" {
		b.Skip("CCOTEL_BENCH_CORPUS not set")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	for _, c := range []struct {
		name string
		args []string
	}{{"dry", []string{"--dry-run", dir}}, {"sink", []string{dir}}} {
		b.Run(c.name, func(b *testing.B) {
			cacheDir := os.Getenv("CCOTEL_BENCH_CACHE")
			if cacheDir == "" {
				cacheDir = b.TempDir()
			}
			run := func() {
				_ = os.RemoveAll(cacheDir + "/ccpipe/otel")
				env := map[string]string{"XDG_CACHE_HOME": cacheDir, "OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL}
				sys := cli.System{Getenv: func(k string) string { return env[k] }}
				var errb bytes.Buffer
				if code := RunWith(sys, c.args, nil, io.Discard, &errb); code != 0 {
					b.Fatalf("exit %d: %s", code, errb.String())
				}
			}
			run()
			for b.Loop() {
				run()
			}
		})
	}
}
