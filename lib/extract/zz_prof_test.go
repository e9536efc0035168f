package extract

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

func BenchmarkZZKind(b *testing.B) {
	dir := os.Getenv("ZZ_DIR")
	kind := os.Getenv("ZZ_KIND")
	if dir == "" {
		b.Skip()
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "projects", "*", "*.jsonl"))
	sort.Strings(paths)
	for b.Loop() {
		x, _ := New(Options{Kind: kind, Errors: os.Getenv("ZZ_ERR") != ""}, func(v any) error { return nil })
		x.ReadTranscripts(context.Background(), func(add func(string) error) error {
			for _, p := range paths {
				if err := add(p); err != nil {
					return err
				}
			}
			return nil
		})
		x.Close()
	}
}
