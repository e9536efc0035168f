package sessions

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// writeBomb writes a zstd transcript whose first record is a prompt and
// whose rest is 80 MiB of zeros (a few KB compressed): past the 64 MiB
// bound of a compressed file without a sidecar.
func writeBomb(t *testing.T, path, prompt string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := zstd.NewWriter(f)
	zw.Write([]byte(`{"type":"user","timestamp":"2026-01-02T03:04:05Z","cwd":"/w","message":{"role":"user","content":"` + prompt + `"}}` + "\n"))
	zero := make([]byte, 1<<20)
	for range 80 {
		zw.Write(zero)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	cache.Settle() // settled: a racy stamp is never Fresh
}

// A compressed transcript refused as a bomb is decompressed by the first
// cached listing only: the next one skips it unread (the cache keeps the
// refusal for that exact file), still warns it once, in a short form, and
// lists what the first read of it said; a file rewritten since (new
// identity) is decompressed and judged again; no cache, no memory.
func TestBombRefusalRemembered(t *testing.T) {
	var opened atomic.Int64
	openCompressed = func(p string) (io.ReadCloser, error) {
		opened.Add(1)
		return transcript.Open(p)
	}
	t.Cleanup(func() { openCompressed = transcript.Open })

	work := t.TempDir()
	cfg := filepath.Join(work, "claude")
	proj := filepath.Join(cfg, "projects", "-w")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	bomb := filepath.Join(proj, "0b0b0b0b-0000-4000-8000-000000000001.jsonl.zst")
	writeBomb(t, bomb, "first")
	profs := []profiles.Profile{{Name: "bomb", ConfigDir: cfg}}
	dir := filepath.Join(work, "cache")

	list := func(stage string, useCache bool) (Session, int64, error) {
		t.Helper()
		var c *cache.Store
		if useCache {
			c = cache.Open(dir, SummaryCacheName, SummaryCacheVersion)
		}
		before := opened.Load()
		l, errs := List(context.Background(), profs, ListOptions{NoActive: true, Cache: c})
		if len(l) != 1 || len(errs) != 1 || !errors.Is(errs[0], transcript.ErrBomb) {
			t.Fatalf("%s: %d sessions, warnings %v", stage, len(l), errs)
		}
		if c != nil {
			if err := c.Save(); err != nil {
				t.Fatal(err)
			}
		}
		return l[0], opened.Load() - before, errs[0]
	}

	first, n, w1 := list("first", true)
	if n != 1 || first.FirstPrompt != "first" || strings.Contains(w1.Error(), "skipped") {
		t.Fatalf("first listing: decompressed %d times, prompt %q, warning %v", n, first.FirstPrompt, w1)
	}
	second, n, w2 := list("second", true)
	var re *RefusedError
	if n != 0 || !errors.As(w2, &re) || re.Path != bomb || second.FirstPrompt != "first" {
		t.Fatalf("second listing: decompressed %d times, prompt %q, warning %v", n, second.FirstPrompt, w2)
	}
	if _, n, _ := list("no cache", false); n != 1 {
		t.Fatalf("without the cache: decompressed %d times", n)
	}

	// A rewrite (same name, new content) is judged again: read, refused
	// again, and then remembered again.
	writeBomb(t, bomb, "again")
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(bomb, later, later); err != nil {
		t.Fatal(err)
	}
	cache.Settle() // Chtimes moved the ctime
	third, n, w3 := list("rewritten", true)
	if n != 1 || third.FirstPrompt != "again" || errors.As(w3, &re) {
		t.Fatalf("rewritten: decompressed %d times, prompt %q, warning %v", n, third.FirstPrompt, w3)
	}
	if _, n, w4 := list("rewritten, again", true); n != 0 || !errors.As(w4, &re) {
		t.Fatalf("rewritten, listed again: decompressed %d times, warning %v", n, w4)
	}
}

// An archive copy that is a bomb, beside the live transcript of its
// session: ReadOnce's measure of the copy decompresses it on the first
// cached listing only, which warns the refusal; the next one warns it
// short without decompressing, and lists the live file both times.
func TestBombCopyRemembered(t *testing.T) {
	var opened atomic.Int64
	archivedLength = func(p string) (int64, error) {
		opened.Add(1)
		return transcript.ArchivedLengthErr(p)
	}
	t.Cleanup(func() { archivedLength = transcript.ArchivedLengthErr })

	work := t.TempDir()
	id := "0b0b0b0b-0000-4000-8000-000000000002"
	cfg, arc := filepath.Join(work, "claude"), filepath.Join(work, "arc")
	for _, d := range []string{filepath.Join(cfg, "projects", "-w"), filepath.Join(arc, "-w")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	live := filepath.Join(cfg, "projects", "-w", id+".jsonl")
	if err := os.WriteFile(live, []byte(`{"type":"user","timestamp":"2026-01-02T03:04:05Z","cwd":"/w","message":{"role":"user","content":"live"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeBomb(t, filepath.Join(arc, "-w", id+".jsonl.zst"), "copy")
	profs := []profiles.Profile{{Name: "p", ConfigDir: cfg}, {Name: "a", ProjectsDir: arc, Source: profiles.SourceArchive}}
	dir := filepath.Join(work, "cache")
	list := func() (int64, error) {
		t.Helper()
		c := cache.Open(dir, SummaryCacheName, SummaryCacheVersion)
		before := opened.Load()
		l, errs := List(context.Background(), profs, ListOptions{NoActive: true, Cache: c})
		if len(l) != 1 || l[0].TranscriptPath != live || len(errs) != 1 || !errors.Is(errs[0], transcript.ErrBomb) {
			t.Fatalf("%d sessions (%+v), warnings %v", len(l), l, errs)
		}
		if err := c.Save(); err != nil {
			t.Fatal(err)
		}
		return opened.Load() - before, errs[0]
	}
	var re *RefusedError
	if n, w := list(); n != 1 || errors.As(w, &re) {
		t.Fatalf("first listing: measured the copy %d times, warning %v", n, w)
	}
	if n, w := list(); n != 0 || !errors.As(w, &re) {
		t.Fatalf("second listing: measured the copy %d times, warning %v", n, w)
	}
}
