package extract

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/ccpipe/ccpipe/bench/corpus"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// BenchmarkUsageSumDay measures `cc-extract usage --sum day --subagents`
// (the fast path: byte prefilter, narrow scan, files read in parallel) on
// a corpus from the benchmark generator, and checks the totals against
// the generator's own expected-usage.json. CCPIPE_BENCH_SIZE sets the size
// (default 64MB); the peer comparison with `ccusage daily --json` is
// bench/run's job.
func BenchmarkUsageSumDay(b *testing.B) {
	size := int64(64 << 20)
	if s := os.Getenv("CCPIPE_BENCH_SIZE"); s != "" {
		n, err := corpus.ParseSize(s)
		if err != nil {
			b.Fatal(err)
		}
		size = n
	}
	dir := b.TempDir()
	m, err := corpus.Generate(context.Background(), corpus.Options{Out: dir, Size: size, Sessions: int(max(20, size>>19)), Seed: 1, HugeLine: 8 << 20})
	if err != nil {
		b.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "projects", "*", "*.jsonl*"))
	sort.Strings(paths)
	var exp corpus.ExpectedUsage
	raw, err := os.ReadFile(filepath.Join(dir, "expected-usage.json"))
	if err != nil || json.Unmarshal(raw, &exp) != nil {
		b.Fatalf("expected-usage.json: %v", err)
	}
	b.SetBytes(m.Bytes)
	b.ResetTimer()
	for b.Loop() {
		var got corpus.Tokens
		x, _ := New(Options{Kind: "usage", Sum: "day", Subagents: true}, func(v any) error {
			s := v.(*usage.Sum)
			got.Add(corpus.Tokens{InputTokens: s.InputTokens, OutputTokens: s.OutputTokens, CacheReadInputTokens: s.CacheReadInputTokens,
				CacheCreationInputTokens: s.CacheCreationInputTokens, TotalTokens: s.TotalTokens, Messages: s.Messages})
			return nil
		})
		readAll(b, x, paths)
		if got != exp.Totals {
			b.Fatalf("totals %+v, want %+v", got, exp.Totals)
		}
	}
}
