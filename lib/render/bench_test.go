package render

import (
	"context"
	"io"
	"os"
	"testing"
)

// BenchmarkRender renders $CCPIPE_RENDER_BENCH (a large transcript, such
// as bench/gen's giant) as HTML; without it, the real-CLI corpus session
// with the most tools.
func BenchmarkRender(b *testing.B) {
	path := os.Getenv("CCPIPE_RENDER_BENCH")
	if path == "" {
		path = "../../testdata/corpus/claude/projects/-home-dev-projects-alpha/c0a1f001-0000-4000-8000-000000000001.jsonl"
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		d, _ := NewDoc(io.Discard, Options{Format: "html"})
		if err := d.Session(context.Background(), Session{Path: path}); err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
}
