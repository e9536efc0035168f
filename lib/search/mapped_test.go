package search

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/mapped"
)

// smallMaps makes every file of at least one byte mapped, in windows of
// size new bytes, for the rest of the test.
func smallMaps(t *testing.T, size int64) {
	oldMin, oldSize := mapMin, mapSize
	mapMin, mapSize = 1, size
	t.Cleanup(func() { mapMin, mapSize = oldMin, oldSize })
}

// TestMappedWindows puts the term across every window boundary of a
// mapped file, and across the pieces a window is searched in, so that
// every cut through it is met; a cut copy is never found.
func TestMappedWindows(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are mapped on Linux only")
	}
	// Windows of 3000 bytes, not a page multiple: windows start mid-page.
	smallMaps(t, 3000)
	dir := t.TempDir()
	for _, tt := range []struct{ term, hit string }{{"needle", "NeEdLe"}, {"Straße", "STRASSE"}, {"ΣΊΣΥΦΟΣ", "σίσυφος"}, {"ab", "aB"}} {
		for _, cut := range []int{3000, 6000, 9000, 12000} {
			for back := 0; back <= len(tt.hit); back++ {
				text := strings.Repeat("é.xy", 4000)[:cut-back] + tt.hit + strings.Repeat("-", 5000)
				p := filepath.Join(dir, "s.jsonl")
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				for _, bs := range []int{64, 1000, 1 << 16} {
					res := search(t, Options{Raw: true, Terms: []string{tt.term}, BufSize: bs}, p)
					if !res.Matched || len(res.Errs) > 0 {
						t.Fatalf("%q at %d-%d, pieces of %d: matched %v, errors %v", tt.term, cut, back, bs, res.Matched, res.Errs)
					}
				}
				cutText := text[:cut-back+len(tt.hit)-1]
				if err := os.WriteFile(p, []byte(cutText), 0o644); err != nil {
					t.Fatal(err)
				}
				res := search(t, Options{Raw: true, Terms: []string{tt.term}, BufSize: 64}, p)
				if res.Matched || res.Bytes != int64(len(cutText)) {
					t.Fatalf("%q cut at %d: matched %v after %d of %d bytes", tt.term, cut, res.Matched, res.Bytes, len(cutText))
				}
			}
		}
	}
}

// TestMappedEarlyStop: a mapped file is left in the piece where the
// answer is known, and a mapped file that is an archive under a plain
// name is still decompressed.
func TestMappedEarlyStop(t *testing.T) {
	smallMaps(t, 1<<20)
	p := session(t, "s.jsonl", "needle\n"+strings.Repeat("y", 3<<20), nil)
	res := search(t, Options{Raw: true, Terms: []string{"NEEDLE"}, BufSize: 4096}, p)
	if !res.Matched || res.Bytes > 4096 {
		t.Errorf("matched %v after %d bytes, want a match within the first piece", res.Matched, res.Bytes)
	}
	res = search(t, Options{Raw: true, Terms: []string{"absent"}, BufSize: 4096}, p)
	if res.Matched || res.Bytes != 7+3<<20 {
		t.Errorf("matched %v after %d bytes, want every byte searched once", res.Matched, res.Bytes)
	}
	gz := session(t, "s.jsonl.gz", "a gzip NEEDLE\n", nil)
	plain := strings.TrimSuffix(gz, ".gz")
	if err := os.Rename(gz, plain); err != nil {
		t.Fatal(err)
	}
	if res := search(t, Options{Raw: true, Terms: []string{"gzip needle"}}, plain); !res.Matched || len(res.Errs) > 0 {
		t.Errorf("mapped gzip under a plain name: matched %v, errors %v", res.Matched, res.Errs)
	}
}

// TestMappedFileShrinks truncates a file while its window is searched:
// the pages past the new end are gone, and touching them must give an
// error, not a crash.
func TestMappedFileShrinks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are mapped on Linux only")
	}
	smallMaps(t, 1<<20)
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(strings.Repeat("x", 1<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Raw: true, Terms: []string{"absent"}})
	if err != nil {
		t.Fatal(err)
	}
	sc := s.NewScanner()
	var res Result
	truncated := false
	sc.read(context.Background(), p, &res, func(buf []byte) bool {
		if !truncated {
			truncated = true
			if err := os.Truncate(p, 0); err != nil {
				t.Fatal(err)
			}
		}
		return s.ms[0].find(buf, &sc.scratch)
	})
	if len(res.Errs) != 1 || !errors.Is(res.Errs[0], mapped.ErrShrank) {
		t.Errorf("errors %v, want %v", res.Errs, mapped.ErrShrank)
	}
}
