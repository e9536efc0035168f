package ccstatusline

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// BenchmarkWarmCall is one status line refresh with the cache warm, on
// the payload in $CCPIPE_STATUSLINE_BENCH_PAYLOAD (bench/run makes one for
// a 100 MB transcript).
func BenchmarkWarmCall(b *testing.B) {
	path := os.Getenv("CCPIPE_STATUSLINE_BENCH_PAYLOAD")
	if path == "" {
		b.Skip("set CCPIPE_STATUSLINE_BENCH_PAYLOAD to a statusLine payload file")
	}
	payload, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	cache := b.TempDir()
	for i := 0; i <= b.N; i++ {
		if i == 1 {
			b.ResetTimer() // the first call fills the cache
		}
		if code := Run([]string{"--cache-dir", cache}, bytes.NewReader(payload), io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
