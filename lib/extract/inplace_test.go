package extract

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// TestKindCacheInPlace: a warm read hands on each unchanged file's record
// in place, from the store's map on the emitting goroutine (fileJob.queue
// and takeCached), and gives what its slow twin gives, the record copied
// and replayed on a worker (readCached), and what a read without the
// cache gives, for every kind of tailForms; a tool result's file removed
// since (a record that no longer holds) has the file read again. A store
// cut shorter under a run fails the run with cache.ErrCut, not a crash.
func TestKindCacheInPlace(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, src := range tailFiles {
		path := filepath.Join(dir, filepath.Base(src))
		golden.CopyTree(t, filepath.Dir(src), dir)
		paths = append(paths, path)
	}
	cache.Settle() // else the first read's stamps are racy: never Fresh
	defer func() { takeInPlace = true }()
	for _, opts := range tailForms {
		name := fmt.Sprintf("%s%v", opts.Kind, []bool{opts.All, opts.Thinking, opts.Errors})
		store := filepath.Join(t.TempDir(), "cache")
		for _, path := range paths {
			want := readKind(t, opts, nil, path)
			readKind(t, opts, OpenCache(store, opts), path) // filled
			for _, inPlace := range []bool{true, false, true} {
				takeInPlace = inPlace
				c := OpenCache(store, opts)
				if got := readKind(t, opts, c, path); got != want {
					t.Fatalf("%s %s warm (in place %v):\n%s\nwant (no cache):\n%s", name, path, inPlace, got, want)
				}
				if st := c.Stats(); st.Fresh == 0 || st.Miss+st.Grown > 0 {
					t.Fatalf("%s %s warm (in place %v): %+v", name, path, inPlace, st)
				}
			}
		}
	}

	// A record that depends on a tool result's file beside the
	// transcript, the file gone since: read again, in place or not.
	opts := Options{Kind: "tools"}
	var path string
	for _, p := range paths {
		if m, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(p, ".jsonl"), "tool-results", "*")); len(m) > 0 {
			path = p
			store := filepath.Join(t.TempDir(), "cache")
			readKind(t, opts, OpenCache(store, opts), path)
			if err := os.Remove(m[0]); err != nil {
				t.Fatal(err)
			}
			want := readKind(t, opts, nil, path)
			for _, inPlace := range []bool{true, false} {
				takeInPlace = inPlace
				if got := readKind(t, opts, OpenCache(store, opts), path); got != want {
					t.Fatalf("tools %s, a result's file gone (in place %v):\n%s\nwant (no cache):\n%s", path, inPlace, got, want)
				}
			}
			break
		}
	}
	if path == "" {
		t.Fatal("no transcript with a tool result's file in tailFiles")
	}

	if runtime.GOOS != "linux" {
		return // stores are read, not mapped
	}
	takeInPlace = true
	path = paths[1]
	store := filepath.Join(t.TempDir(), "cache")
	readKind(t, opts, OpenCache(store, opts), path)
	c := OpenCache(store, opts)
	c.Stats() // loaded
	if err := os.Truncate(cache.File(store, CacheName(opts), ".cache"), 0); err != nil {
		t.Fatal(err)
	}
	x, err := New(Options{Kind: "tools", Cache: c, Warn: func(string) {}}, func(any) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	err = x.ReadTranscript(context.Background(), path)
	if cerr := x.Close(); err == nil {
		err = cerr
	}
	if !errors.Is(err, cache.ErrCut) && !strings.Contains(fmt.Sprint(err), cache.ErrCut.Error()) {
		t.Fatalf("a store cut under the run: %v, want %v", err, cache.ErrCut)
	}
}
