package secrets

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/ccpipe/ccpipe/bench/corpus"
)

// benchLines is a bench/gen corpus (32 MB, CCPIPE_BENCH_SIZE to change)
// as lines, generated once per test binary.
var benchLines = sync.OnceValues(func() ([][]byte, error) {
	size := int64(32 << 20)
	if s := os.Getenv("CCPIPE_BENCH_SIZE"); s != "" {
		n, err := corpus.ParseSize(s)
		if err != nil {
			return nil, err
		}
		size = n
	}
	dir, err := os.MkdirTemp("", "secrets-bench")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if _, err := corpus.Generate(context.Background(), corpus.Options{Out: dir, Size: size, Sessions: 20, Seed: 1, HugeLine: -1}); err != nil {
		return nil, err
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "projects", "*", "*.jsonl"))
	var lines [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		lines = append(lines, bytes.Split(b, []byte("\n"))...)
	}
	return lines, nil
})

func bench(b *testing.B, fn func(line []byte)) {
	lines, err := benchLines()
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	b.SetBytes(int64(n))
	b.ResetTimer()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0 := threadCPU()
	iters := 0
	for b.Loop() {
		iters++
		for _, l := range lines {
			fn(l)
		}
	}
	if c1 := threadCPU(); c1 > c0 {
		b.ReportMetric(float64(n)*float64(iters)/(c1-c0)/1e6, "MB/cpu-s")
	}
}

// BenchmarkKeywordScan is the prefilter alone: the floor of every path.
func BenchmarkKeywordScan(b *testing.B) {
	bench(b, func(l []byte) { Default.ready().eachHit(l, func(int, int) bool { return true }) })
}

func BenchmarkFind(b *testing.B) { bench(b, func(l []byte) { Default.Find(l) }) }

func BenchmarkScanJSON(b *testing.B) { bench(b, func(l []byte) { _, _ = Default.ScanJSON(l) }) }

func BenchmarkRedactJSON(b *testing.B) {
	var dst []byte
	bench(b, func(l []byte) { dst, _, _ = Default.RedactJSON(dst[:0], l) })
}
