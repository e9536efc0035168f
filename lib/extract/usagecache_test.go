package extract

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// TestUsageCacheBadEntry: an entry that checks out against its file but
// does not decode (what the store's checksum keeps out) is read around:
// the file is read again and the sums are those of no cache.
func TestUsageCacheBadEntry(t *testing.T) {
	src, err := os.ReadFile("../../testdata/corpus/claude/projects/-home-dev-projects-beta/c0a1f002-0000-4000-8000-000000000002.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "c0a1f002-0000-4000-8000-000000000002.jsonl")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	sum := func(c *cache.Store) []string {
		var out []string
		x, err := New(Options{Kind: "usage", Sum: "day", Cache: c, Warn: func(m string) { out = append(out, "warn: "+m) }}, func(v any) error {
			s := v.(*usage.Sum)
			out = append(out, fmt.Sprintf("%v %d %d", deref(s.Date), s.Messages, s.TotalTokens))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := x.ReadTranscript(context.Background(), path); err != nil {
			t.Fatal(err)
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	want := sum(nil)
	c := cache.Open(dir, usage.FactsCacheName(false, true), usage.FactsCacheVersion)
	if got := sum(c); !reflect.DeepEqual(got, want) {
		t.Fatalf("cold: %v, want %v", got, want)
	}
	var e cache.Entry
	c.Each(func(p string, v *cache.Entry) {
		if p == path {
			e = *v
		}
	})
	if e.Data == nil {
		t.Fatal("no entry")
	}
	e.Data = append(e.Data[:len(e.Data)/2:len(e.Data)/2], 0xff, 0xff, 0xff)
	c.Put(path, &e)
	if st := c.Stats(); st.Fresh != 0 {
		t.Fatalf("lookups before: %+v", st)
	}
	if got := sum(c); !reflect.DeepEqual(got, want) {
		t.Fatalf("with a bad entry: %v, want %v", got, want)
	}
	// The file was read again, and its entry written anew.
	var data []byte
	c.Each(func(p string, v *cache.Entry) {
		if p == path {
			data = v.Data
		}
	})
	var f usage.Facts
	if _, ok := f.Read(data, true); !ok {
		t.Fatal("the bad entry was kept")
	}
}
