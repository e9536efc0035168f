package sessions

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/profiles"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// TestSummaryCache: the listing of the corpus is the same without the
// cache, with a cold one and a warm one, and after a transcript grew; a
// warm listing reads at most 2 KiB per unchanged transcript.
func TestSummaryCache(t *testing.T) {
	work := t.TempDir()
	cfg := filepath.Join(work, "claude")
	golden.CopyTree(t, "../../testdata/corpus/claude", cfg)
	profs := []profiles.Profile{{Name: "corpus", ConfigDir: cfg}}
	dir := filepath.Join(work, "cache")
	list := func(c *cache.Store) []Session {
		t.Helper()
		l, errs := List(context.Background(), profs, ListOptions{NoActive: true, Cache: c})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		for i := range l {
			l[i].BytesRead = 0
			l[i].stamp = cache.Stamp{} // a racy stamp of one listing may be settled in the next
		}
		return l
	}
	check := func(stage string) {
		want := list(nil)
		if len(want) < 5 {
			t.Fatalf("%s: listed %d sessions", stage, len(want))
		}
		for _, pass := range []string{"first", "second"} {
			c := cache.Open(dir, SummaryCacheName, SummaryCacheVersion)
			if got := list(c); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, %s cached listing differs:\n%+v\nwant\n%+v", stage, pass, got, want)
			}
			if err := c.Save(); err != nil {
				t.Fatal(err)
			}
		}
	}
	check("cold")
	c := cache.Open(dir, SummaryCacheName, SummaryCacheVersion)
	l, _ := List(context.Background(), profs, ListOptions{NoActive: true, Cache: c})
	var read int64
	for _, s := range l {
		read += s.BytesRead
	}
	if st := c.Stats(); st.Fresh != len(l) || read > int64(len(l))*2048 {
		t.Fatalf("warm listing: %+v, %d bytes read for %d sessions", st, read, len(l))
	}
	// A transcript grows by a new turn with a title.
	p := l[len(l)-1].TranscriptPath
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	if _, err := f.WriteString(`{"type":"custom-title","customTitle":"grown","sessionId":"` + l[len(l)-1].SessionID + `"}` + "\n" +
		`{"type":"user","timestamp":"` + now + `","message":{"role":"user","content":"more"}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	check("grown")
	c = cache.Open(dir, SummaryCacheName, SummaryCacheVersion)
	for _, s := range list(c) {
		if s.TranscriptPath == p && s.Title != "grown" {
			t.Fatalf("grown transcript's new title not listed: %q", s.Title)
		}
	}
}

// TestListReadDirSame: the session records listed with the dirs read
// through ListOptions.ReadDir (cc-grep hands its index's kept listings)
// and with the cache's unchanged transcripts taken on the listing's
// stamp are the ones listed the plain way: titles from custom-title.json,
// has_subagents, over the real-CLI corpus.
func TestListReadDirSame(t *testing.T) {
	work := t.TempDir()
	cfg := filepath.Join(work, "claude")
	golden.CopyTree(t, "../../testdata/corpus/claude", cfg)
	// A title file in every session dir: what the listing's title falls
	// back to when the transcript's tail names none.
	dirs, _ := filepath.Glob(filepath.Join(cfg, "projects", "*", "*-*-*-*-*"))
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			if err := os.WriteFile(filepath.Join(d, "custom-title.json"), []byte(`{"customTitle":"from the file"}`), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	cache.Settle()
	profs := []profiles.Profile{{Name: "corpus", ConfigDir: cfg}}
	list := func(o ListOptions) []Session {
		t.Helper()
		o.NoActive = true
		l, errs := List(context.Background(), profs, o)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		for i := range l {
			l[i].BytesRead = 0
			l[i].stamp = cache.Stamp{}
		}
		return l
	}
	want := list(ListOptions{})
	var read atomic.Int64
	readDir := func(dir string) ([]fs.DirEntry, error) {
		read.Add(1)
		return os.ReadDir(dir)
	}
	dir := filepath.Join(work, "cache")
	for _, pass := range []string{"cold", "warm"} {
		c := cache.Open(dir, SummaryCacheName, SummaryCacheVersion)
		got := list(ListOptions{ReadDir: readDir, Cache: c})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: listed through ReadDir:\n%+v\nwant\n%+v", pass, got, want)
		}
		if err := c.Save(); err != nil {
			t.Fatal(err)
		}
	}
	titled, sub := false, false
	for _, s := range want {
		titled = titled || s.Title == "from the file"
		sub = sub || s.HasSubagents
	}
	if read.Load() == 0 || !titled || !sub {
		t.Fatalf("ReadDir called %d times; a titled session with a dir %v, one with subagents %v: the test does not test", read.Load(), titled, sub)
	}
}
