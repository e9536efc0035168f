package sessions

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
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
