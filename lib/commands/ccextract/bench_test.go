package ccextract

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/bench/corpus"
	"github.com/ccpipe/ccpipe/lib/cache"
)

// BenchmarkColdKinds runs `cc-extract KIND --no-cache` over the main
// transcripts of a corpus, each kind a sub-benchmark, output discarded
// (encoded all the same): the profile of a cold run (go test -bench
// ColdKinds -cpuprofile). CCPIPE_BENCH_CORPUS names a corpus made by
// bench/gen (e.g. /work/corpus/c300); without it a 16 MB one is made.
// Its speed against `usage --no-cache` is bench/run's row, not a test.
func BenchmarkColdKinds(b *testing.B) { benchKinds(b, false) }

// BenchmarkWarmKinds is BenchmarkColdKinds with the cache, warm: each
// kind's store filled and checked (sealed) before the runs measured.
func BenchmarkWarmKinds(b *testing.B) { benchKinds(b, true) }

func benchKinds(b *testing.B, warm bool) {
	dir := os.Getenv("CCPIPE_BENCH_CORPUS")
	if dir == "" {
		dir = b.TempDir()
		if _, err := corpus.Generate(context.Background(), corpus.Options{Out: dir, Size: 16 << 20, Sessions: 20, Seed: 1, HugeLine: 4 << 20}); err != nil {
			b.Fatal(err)
		}
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "projects", "*", "*.jsonl"))
	sort.Strings(paths)
	if len(paths) == 0 {
		b.Fatalf("no transcripts under %s/projects", dir)
	}
	b.Setenv("XDG_CACHE_HOME", b.TempDir())
	kinds := []string{"usage", "shell", "shell --errors", "tools", "tools --errors", "prompts", "texts", "files", "failures", "subagents", "compactions", "conversation"}
	for _, k := range kinds {
		b.Run(strings.ReplaceAll(k, " ", ""), func(b *testing.B) {
			args := append(append(strings.Fields(k), "--no-cache"), paths...)
			if warm {
				args = append(strings.Fields(k), paths...)
				for range 2 {
					Run(args, strings.NewReader(""), io.Discard, io.Discard)
					cache.Settle()
				}
			}
			for b.Loop() {
				if code := Run(args, strings.NewReader(""), io.Discard, io.Discard); code > 1 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}
