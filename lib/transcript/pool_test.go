package transcript

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The read buffers ReadFile and Stream hand back to readBufs are taken
// again by the next file: a short file read after a long one (and after
// a partial last line) must give its own bytes, none left from before.
func TestPooledBuffersKeepNothing(t *testing.T) {
	dir := t.TempDir()
	var long strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&long, `{"type":"user","uuid":"long-%04d","message":{"content":"%s"}}`+"\n", i, strings.Repeat("z", 90))
	}
	files := map[string]string{
		"long.jsonl":    long.String(),
		"partial.jsonl": `{"type":"user","uuid":"p1"}` + "\n" + `{"type":"user","uuid":"p2"`,
		"short.jsonl":   `{"type":"user","uuid":"s1"}` + "\n" + `{"type":"assistant","uuid":"s2"}` + "\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string, stream bool) string {
		var got []string
		fn := func(l *Line) error { got = append(got, string(l.Bytes)); return nil }
		p := filepath.Join(dir, name)
		var err error
		if stream {
			_, err = Stream(context.Background(), Source{Path: p}, Options{}, Select{}, fn)
		} else {
			_, err = ReadFile(p, Options{}, fn)
		}
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, "\n")
	}
	for _, stream := range []bool{false, true} {
		for range 3 {
			for _, name := range []string{"long.jsonl", "partial.jsonl", "short.jsonl"} {
				want := strings.TrimSuffix(files[name], "\n")
				if name == "partial.jsonl" {
					want = `{"type":"user","uuid":"p1"}` // the cut last line is not handed on
				}
				if got := read(name, stream); got != want {
					t.Fatalf("stream %v, %s: got %d bytes %.80q, want %d bytes %.80q", stream, name, len(got), got, len(want), want)
				}
			}
		}
	}
}
