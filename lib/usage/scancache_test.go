package usage

import (
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// checkCached reads the file through the cache c and without one, and
// fails on any difference in messages, warnings' facts or error.
func checkCached(t *testing.T, c *cache.Store, f File, step string) {
	t.Helper()
	want, _, wantSt, wantErr := scanFile(transcript.Open, f, nil)
	got, _, gotSt, gotErr := scanCached(c, transcript.Open, f, nil)
	if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
		t.Fatalf("%s: error %v, uncached %v", step, gotErr, wantErr)
	}
	if len(want) == 0 {
		want = nil
	}
	if len(got) == 0 {
		got = nil
	}
	if f.Sums {
		got, want = sumView(got), sumView(want)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: messages differ:\ncached   %+v\nuncached %+v", step, got, want)
	}
	if !reflect.DeepEqual(gotSt, wantSt) {
		t.Fatalf("%s: stats differ:\ncached   %+v\nuncached %+v", step, gotSt, wantSt)
	}
	if gotErr != nil {
		return
	}
	// A warm run's way: the messages read one by one from the entry, the
	// session marks asked for windows without decoding them all.
	// (Each, not Unchanged: the lookup counts are the tests' to check.)
	var data []byte
	c.Each(func(p string, e *cache.Entry) {
		if p == f.Path {
			data = e.Data
		}
	})
	if b, _ := os.ReadFile(f.Path); len(b) == 0 || b[len(b)-1] != '\n' {
		return // a line not ended yet is not cached
	}
	facts := &Facts{}
	st, ok := facts.Read(data, f.Sums)
	if !ok {
		t.Fatalf("%s: the entry does not decode", step)
	}
	var streamed []Message
	err := facts.Each(func(r *Message, key uint64) error {
		if key != keyOf(r) && !f.Sums {
			t.Fatalf("%s: key %x of a message whose key is %x", step, key, keyOf(r))
		}
		streamed = append(streamed, *r)
		return nil
	})
	if err != nil {
		t.Fatalf("%s: the entry's messages do not decode: %v", step, err)
	}
	if f.Sums {
		streamed = sumView(streamed)
	}
	if !reflect.DeepEqual(streamed, want) {
		t.Fatalf("%s: streamed messages differ:\ncached   %+v\nuncached %+v", step, streamed, want)
	}
	headSt := wantSt
	headSt.marks = nil
	if !reflect.DeepEqual(st, headSt) {
		t.Fatalf("%s: streamed stats differ:\ncached   %+v\nuncached %+v", step, st, headSt)
	}
	windows := []func(string) bool{func(string) bool { return true }}
	for _, m := range wantSt.marks {
		ts := m.ts
		windows = append(windows, func(v string) bool { return v >= ts }, func(v string) bool { return v > ts })
	}
	for i, in := range windows {
		sid, cwd, ok := facts.Listed(in)
		wsid, wcwd := wantSt.Listed(in)
		if !ok || sid != wsid || cwd != wcwd {
			t.Fatalf("%s: window %d lists %q %q (ok %v), uncached %q %q", step, i, sid, cwd, ok, wsid, wcwd)
		}
	}
}

// sumView is what a --sum reads of each message, which the --sum cache
// keeps: its key, and its ids only where a sum names them.
func sumView(recs []Message) []Message {
	var out []Message
	for _, r := range recs {
		if !SumNamesIDs(&r) {
			r.MessageID, r.UUID = "", ""
		}
		r.RequestID, r.RequestRef = "", ""
		out = append(out, r)
	}
	return out
}

// grow writes the file's new content: an append when old is a prefix of
// it, else a rewrite, whose mtime is moved on (a rewrite in the same
// mtime tick to the same size is what size and mtime cannot tell; the
// tail hash catches most of those, not all).
func grow(t *testing.T, path string, old, next []byte, tick *time.Time) {
	t.Helper()
	if len(next) >= len(old) && string(next[:len(old)]) == string(old) {
		fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fh.Write(next[len(old):]); err != nil {
			t.Fatal(err)
		}
		if err := fh.Close(); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := os.WriteFile(path, next, 0o600); err != nil {
		t.Fatal(err)
	}
	*tick = tick.Add(time.Second)
	if err := os.Chtimes(path, *tick, *tick); err != nil {
		t.Fatal(err)
	}
}

// FuzzUsageCache: a transcript appended to (whole lines or not) and
// rewritten, step by step, reads the same through the cache (reopened
// from disk at some steps) as without it.
func FuzzUsageCache(f *testing.F) {
	for _, p := range []string{
		"../../testdata/corpus/claude/projects/-home-dev-projects-beta/c0a1f002-0000-4000-8000-000000000002.jsonl",
		"../../testdata/corpus-fork/claude/projects/-home-dev-projects-forks/f0a1f002-0000-4000-8000-000000000002.jsonl",
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		b = b[:min(len(b), 40000)]
		f.Add(b, []byte{10, 200, 3, 255, 90, 0, 128, 7, 64}, false)
		f.Add(b, []byte{250, 1, 2, 3, 4, 5}, true)
	}
	f.Add([]byte(`{"type":"assistant","uuid":"u1","timestamp":"2026-01-01T00:00:00Z","message":{"id":"m","model":"claude-x","usage":{"input_tokens":1}}}`+"\n"+
		`{"type":"assistant","uuid":"u2","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m","model":"claude-x","usage":{"input_tokens":5}}}`+"\nnot json\n"),
		[]byte{60, 140, 170, 250}, false)
	f.Fuzz(runFuzzCase)
}

func runFuzzCase(t *testing.T, content, steps []byte, cost bool) {
	{
		if len(steps) > 24 {
			steps = steps[:24]
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "s.jsonl")
		fi := File{Path: path, SessionID: "s", Cost: cost}
		fs := fi
		fs.Sums = true
		c := cache.Open(dir, FactsCacheName(cost, false), FactsCacheVersion)
		cs := cache.Open(dir, FactsCacheName(cost, true), FactsCacheVersion)
		var cur []byte
		tick := time.Unix(1_700_000_000, 0)
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		for i, s := range steps {
			var next []byte
			switch {
			case s%16 == 15:
				// Rewritten: a byte changed, somewhere before the end.
				next = append([]byte(nil), cur...)
				if len(next) > 0 {
					next[int(s)*7919%len(next)] ^= 0x20
				}
			case s%16 == 14:
				// Truncated.
				next = append([]byte(nil), cur[:len(cur)*int(s)/255]...)
			default:
				// Appended: up to the step's share of the content.
				n := min(len(content), len(cur)+len(content)*int(s)/255+1)
				next = append(append([]byte(nil), cur...), content[min(len(cur), n):n]...)
			}
			grow(t, path, cur, next, &tick)
			cur = next
			checkCached(t, c, fi, "step "+string(rune('a'+i)))
			checkCached(t, cs, fs, "sums step "+string(rune('a'+i)))
			if s%3 == 0 {
				if err := c.Save(); err != nil {
					t.Fatal(err)
				}
				if err := cs.Save(); err != nil {
					t.Fatal(err)
				}
				c = cache.Open(dir, FactsCacheName(cost, false), FactsCacheVersion)
				cs = cache.Open(dir, FactsCacheName(cost, true), FactsCacheVersion)
			}
		}
	}
}

// TestUsageCacheCorpus: every transcript of the corpus reads the same
// cold, warm and after its last lines were appended again.
func TestUsageCacheCorpus(t *testing.T) {
	var paths []string
	for _, root := range []string{"../../testdata/corpus", "../../testdata/corpus-fork"} {
		m, _ := filepath.Glob(filepath.Join(root, "claude/projects/*/*.jsonl"))
		s, _ := filepath.Glob(filepath.Join(root, "claude/projects/*/*/subagents/*.jsonl"))
		paths = append(append(paths, m...), s...)
	}
	if len(paths) < 10 {
		t.Fatalf("corpus not found: %d files", len(paths))
	}
	dir := t.TempDir()
	for _, mode := range []struct{ cost, sums bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		cost := mode.cost
		c := cache.Open(dir, FactsCacheName(cost, mode.sums), FactsCacheVersion)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			// Half the file first, cut mid-line, then the rest.
			cp := filepath.Join(dir, filepath.Base(p))
			half := b[:len(b)/2]
			if err := os.WriteFile(cp, half, 0o600); err != nil {
				t.Fatal(err)
			}
			fi := File{Path: cp, SessionID: "s", Cost: cost, Sums: mode.sums}
			checkCached(t, c, fi, p+" half")
			tick := time.Now()
			grow(t, cp, half, b, &tick)
			cache.Settle() // else the grown stamp is racy and the warm check reads it again
			checkCached(t, c, fi, p+" grown")
			checkCached(t, c, fi, p+" warm")
		}
		st := c.Stats()
		if st.Grown != len(paths) || st.Fresh != len(paths) {
			t.Fatalf("the cache was not used as meant: %+v", st)
		}
	}
}

// TestUsageCacheRandom runs FuzzUsageCache's steps on random damage of a
// real transcript (the fuzz engine's own runs are slow on this machine).
func TestUsageCacheRandom(t *testing.T) {
	b, err := os.ReadFile("../../testdata/corpus/claude/projects/-home-dev-projects-beta/c0a1f002-0000-4000-8000-000000000002.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	b = b[:min(len(b), 40000)]
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 60; i++ {
		c := append([]byte(nil), b[:r.Intn(len(b))]...)
		for k := r.Intn(6); k > 0 && len(c) > 0; k-- {
			c[r.Intn(len(c))] = byte(r.Intn(256))
		}
		steps := make([]byte, r.Intn(20))
		r.Read(steps)
		runFuzzCase(t, c, steps, r.Intn(2) == 0)
	}
}

// TestUsageCacheWarmOpensNothing: a warm read of an unchanged transcript
// takes its facts on a stat alone; it never opens the file. (A file made
// unreadable would not tell: the tests may run as root.)
func TestUsageCacheWarmOpensNothing(t *testing.T) {
	dir, path, b := betaCopy(t)
	cache.Settle() // a stamp of a file written just now is racy: never Fresh
	opens := 0
	open := func(p string) (io.ReadCloser, error) {
		opens++
		return transcript.Open(p)
	}
	fi := File{Path: path, SessionID: "s"}
	c := cache.Open(dir, "usage", FactsCacheVersion)
	cold, _, _, err := scanCached(c, open, fi, nil)
	if err != nil || opens != 1 || len(cold) == 0 {
		t.Fatalf("cold read: %d messages, %d opens, %v", len(cold), opens, err)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	c = cache.Open(dir, "usage", FactsCacheVersion)
	warm, _, _, err := scanCached(c, open, fi, nil)
	if err != nil || !reflect.DeepEqual(warm, cold) {
		t.Fatalf("warm read differs: %v", err)
	}
	if opens != 1 {
		t.Fatalf("a warm read of an unchanged transcript opened it (%d opens)", opens)
	}
	// Appended: now it is opened, and read on from the cached offset.
	grow(t, path, b, append(append([]byte(nil), b...), b[:len(b)/3]...), &time.Time{})
	if _, _, _, err := scanCached(c, open, fi, nil); err != nil || opens != 2 {
		t.Fatalf("grown read: %d opens, %v", opens, err)
	}
	if st := c.Stats(); st.Fresh != 1 || st.Grown != 1 {
		t.Fatalf("lookups: %+v", st)
	}
}

// betaCopy copies a corpus transcript into a temporary dir: the dir, the
// copy's path and its bytes.
func betaCopy(t *testing.T) (dir, path string, b []byte) {
	t.Helper()
	src := "../../testdata/corpus/claude/projects/-home-dev-projects-beta/c0a1f002-0000-4000-8000-000000000002.jsonl"
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	path = filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, path, b
}

// keyOf is the key of a message from its ids.
func keyOf(r *Message) uint64 {
	b := r.Bill()
	return KeyOf(&b)
}
