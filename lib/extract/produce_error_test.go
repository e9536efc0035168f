package extract

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// TestUsageProducerErrorIsReported is issue 13 item 6: when the producer
// fails (a dir that cannot be listed), the usage fast path returns that
// error, not the "context canceled" its cancellation caused.
func TestUsageProducerErrorIsReported(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(p, []byte(`{"type":"assistant","uuid":"a","message":{"id":"m","role":"assistant","model":"claude-x","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := errors.New("listing /x: permission denied")
	for i := 0; i < 20; i++ { // the race it was lost in is timing-dependent
		x, err := New(Options{Kind: "usage"}, func(any) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		err = x.ReadTranscripts(context.Background(), func(add func(string) error) error {
			if err := add(p); err != nil {
				return err
			}
			return want
		})
		x.Close()
		if !errors.Is(err, want) {
			t.Fatalf("run %d: error %v, want %v", i, err, want)
		}
	}
}

// TestUsageProducerStaged: with a cache, a lister goroutine runs ahead
// of the one that looks files up; the producer's error and the order of
// its warnings among the files' own are as without one.
func TestUsageProducerStaged(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, name := range []string{"a", "b"} {
		p := filepath.Join(dir, "0a1f000"+name+"-0000-4000-8000-000000000001.jsonl")
		line := `{"type":"assistant","uuid":"` + name + `","timestamp":"2026-01-01T00:00:00Z","message":{"id":"m` + name + `","role":"assistant","model":"claude-x","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}`
		if err := os.WriteFile(p, []byte(line+"\nnot json\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	run := func(c *cache.Store, fail error) ([]string, error) {
		var warns []string
		x, err := New(Options{Kind: "usage", Sum: "day", Cache: c, Warn: func(m string) { warns = append(warns, m) }}, func(any) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		err = x.ReadTranscripts(context.Background(), func(add func(string) error) error {
			if err := add(paths[0]); err != nil {
				return err
			}
			x.Warn("between")
			if err := add(paths[1]); err != nil {
				return err
			}
			x.Warn("after")
			return fail
		})
		x.Close()
		return warns, err
	}
	want, err := run(nil, nil)
	if err != nil || len(want) != 4 {
		t.Fatalf("without a cache: %v %q", err, want)
	}
	c := cache.Open(t.TempDir(), usage.FactsCacheName(false, true), usage.FactsCacheVersion)
	for _, pass := range []string{"cold", "warm"} {
		got, err := run(c, nil)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%s: %v %q, want %q", pass, err, got, want)
		}
	}
	fail := errors.New("listing /x: permission denied")
	for i := 0; i < 20; i++ {
		if _, err := run(c, fail); !errors.Is(err, fail) {
			t.Fatalf("run %d: error %v, want %v", i, err, fail)
		}
	}
}
