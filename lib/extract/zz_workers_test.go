package extract

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// untracked: Workers 1 vs 2 per kind, interleaved with -count.
func BenchmarkZZWorkers(b *testing.B) {
	dir := os.Getenv("ZZ_DIR")
	if dir == "" {
		b.Skip()
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "projects", "*", "*.jsonl"))
	sort.Strings(paths)
	for _, kind := range strings.Fields(os.Getenv("ZZ_KINDS")) {
		for _, w := range []int{1, 2} {
			b.Run(kind+"/w"+string(rune('0'+w)), func(b *testing.B) {
				for b.Loop() {
					x, _ := New(Options{Kind: kind, Workers: w}, func(v any) error { return nil })
					if err := x.ReadTranscripts(context.Background(), producePaths(paths)); err != nil {
						b.Fatal(err)
					}
					x.Close()
				}
			})
		}
	}
}
