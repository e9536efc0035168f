package searchindex

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/search"
)

// snapCorpus writes n sessions, each with a subagent transcript and a
// stored tool result, every line whole (so that every session can have
// a snapshot), and waits out the racy windows of files and dirs.
func snapCorpus(t *testing.T, r *rand.Rand, dir string, n int) []string {
	t.Helper()
	proj := filepath.Join(dir, "projects", "-home-dev-p")
	var paths []string
	for s := range n {
		id := fmt.Sprintf("%08d-0000-4000-8000-000000000000", s)
		p := filepath.Join(proj, id+".jsonl")
		writeLines(t, p, r, 1+r.IntN(20), false)
		if s%4 != 3 { // the last of four has no session dir
			writeLines(t, filepath.Join(proj, id, "subagents", "agent-a1.jsonl"), r, 1+r.IntN(10), false)
			write(t, filepath.Join(proj, id, "tool-results", "r1.txt"), sentence(r, 20)+"\n")
		}
		paths = append(paths, p)
	}
	cache.Settle()
	return paths
}

// say is a user record saying text.
func say(text string) string {
	return mustJSON(map[string]any{"type": "user", "uuid": "u9", "message": map[string]any{"role": "user", "content": text}}) + "\n"
}

// keepMtime runs fn, then sets dir's mtime back to what it was: only its
// ctime tells that its listing changed.
func keepMtime(t *testing.T, dir string, fn func()) {
	t.Helper()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	fn()
	if err := os.Chtimes(dir, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// TestSnapshotStale: once every session has its snapshot, a search reads
// none of the manifest; each change a snapshot must see (a file grown,
// added, removed or rewritten at its size and mtime, a session dir made
// or removed, a segment gone) leaves that session to the manifest, which
// finds the change (the search for a word the change brought in gives
// the scan's answer), indexes it, and the next search writes the
// session's snapshot anew.
func TestSnapshotStale(t *testing.T) {
	smallDocs(t)
	racyDir = 0 // listings kept once settled, as outside the tests
	r := rand.New(rand.NewPCG(41, 42))
	dir, cacheDir := t.TempDir(), t.TempDir()
	paths := snapCorpus(t, r, dir, 16)
	sessDir := func(i int) string { return strings.TrimSuffix(paths[i], ".jsonl") }
	// query searches for words and checks the scan's answer; want is how
	// many sessions the snapshots answer (-1: any).
	query := func(what string, want int64, words ...string) {
		t.Helper()
		ix := checkSame(t, cacheDir, paths, search.Options{Terms: words, Any: true})
		if want >= 0 && ix.fromSnap.Load() != want {
			t.Fatalf("%s: %d sessions answered from snapshots, want %d (%d answered)", what, ix.fromSnap.Load(), want, ix.Answered.Load())
		}
	}
	all := int64(len(paths))
	query("build", 0, "flakytest")
	query("first warm search: snapshots written", 0, "flakytest")
	query("second warm search", all, "flakytest")
	// The manifest is not needed: a search without it still answers
	// every session from the snapshots.
	m := manifest(cacheDir)
	if err := os.Rename(m, m+".away"); err != nil {
		t.Fatal(err)
	}
	query("manifest away", all, "flakytest", "error")
	if err := os.Rename(m+".away", m); err != nil {
		t.Fatal(err)
	}

	changes := []struct {
		name string
		fn   func(word string) // makes word appear in session 1 (or 3)
		sess int
	}{
		{"subagent transcript grown", func(w string) {
			f, err := os.OpenFile(filepath.Join(sessDir(1), "subagents", "agent-a1.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(say(w))
			f.Close()
		}, 1},
		{"subagent transcript added", func(w string) {
			d := filepath.Join(sessDir(1), "subagents")
			keepMtime(t, d, func() { write(t, filepath.Join(d, "agent-a2.jsonl"), say(w)) })
		}, 1},
		{"tool result rewritten at its size and mtime", func(w string) {
			p := filepath.Join(sessDir(1), "tool-results", "r1.txt")
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(p)
			copy(b, w)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, 1},
		{"tool result added", func(w string) {
			d := filepath.Join(sessDir(1), "tool-results")
			keepMtime(t, d, func() { write(t, filepath.Join(d, "r2.txt"), w+"\n") })
		}, 1},
		{"session dir made", func(w string) {
			write(t, filepath.Join(sessDir(3), "subagents", "agent-b1.jsonl"), say(w))
		}, 3},
		{"subagents dir made", func(w string) {
			if err := os.RemoveAll(filepath.Join(sessDir(2), "subagents")); err != nil {
				t.Fatal(err)
			}
			cache.Settle()
			query("subagents dir removed", -1, "flakytest")
			query("subagents dir removed: snapshot written", -1, "flakytest")
			keepMtime(t, sessDir(2), func() { write(t, filepath.Join(sessDir(2), "subagents", "agent-c1.jsonl"), say(w)) })
		}, 2},
	}
	for i, c := range changes {
		w := fmt.Sprintf("zqsnapword%d", i)
		c.fn(w)
		cache.Settle()
		want := searchWith(t, "", paths, search.Options{Terms: []string{w}})
		if !slices.Equal(want, []string{paths[c.sess]}) {
			t.Fatalf("%s: the scan finds %q in %q: the test changed nothing", c.name, w, want)
		}
		query(c.name, all-1, w)
		// That search indexed the change; the next writes the session's
		// snapshot, and the one after answers it from there.
		query(c.name+", next search", all-1, w)
		query(c.name+", the search after", all, w)
	}

	// A session dir removed: its files are gone, the session is answered
	// by the manifest (and the scan) as having none, once a term its
	// main transcript does not decide asks for them; one it decides is
	// answered from the snapshot (the dirs are not looked at).
	if err := os.RemoveAll(sessDir(0)); err != nil {
		t.Fatal(err)
	}
	cache.Settle()
	query("session dir removed, a term no main transcript holds", all-1, "zqsnapword0")
	query("session dir removed, next search", all, "error", "zqsnapword0") // nothing to index

	// A segment gone: every session with a piece in it is left to the
	// manifest, which indexes it again (the tests' small segments are
	// then compacted, indexed again once more): within a few searches,
	// every session is answered from a snapshot again.
	if err := os.Remove(segments(t, cacheDir)[0]); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		ix := checkSame(t, cacheDir, paths, search.Options{Terms: []string{"flakytest", "zqsnapword1"}, Any: true})
		if ix.fromSnap.Load() == all {
			break
		}
		if i == 5 {
			t.Fatalf("a segment gone: %d searches on, %d of %d sessions answered from snapshots", i, ix.fromSnap.Load(), all)
		}
	}
}

// TestSnapshotTwin: the index gives the same answers with the snapshots
// as without them (each then the scan's), over a corpus whose files and
// dirs change between queries.
func TestSnapshotTwin(t *testing.T) {
	smallDocs(t)
	r := rand.New(rand.NewPCG(43, 44))
	paths := snapCorpus(t, r, t.TempDir(), 30)
	without := twin(t, r, paths, 40, &useSnapshots, "a session answered from a snapshot",
		func(ix *Index) int64 { return ix.fromSnap.Load() }, nil)
	if _, err := os.Stat(cache.File(without, snapsName, ".cache")); err == nil {
		t.Fatal("snapshots written while turned off")
	}
}

// TestSnapshotDamaged: the snapshots' store flipped in the middle, cut
// short, or holding an entry that does not decode: the sessions are
// answered from the manifest.
func TestSnapshotDamaged(t *testing.T) {
	for _, how := range []string{"flipped", "cut", "undecodable"} {
		t.Run(how, func(t *testing.T) {
			damaged(t, func(t *testing.T, dir string) {
				p := cache.File(dir, snapsName, ".cache")
				if how == "undecodable" {
					// A store that reads, each entry's data garbage.
					st := cache.Open(dir, snapsName, formatVersion)
					bad := map[string]*cache.Entry{}
					st.Each(func(path string, e *cache.Entry) {
						e2 := *e
						e2.Data = []byte{1, 200, 7, 3}
						bad[path] = &e2
					})
					if len(bad) == 0 {
						t.Fatal("no snapshot to damage")
					}
					for p, e := range bad {
						st.Put(p, e)
					}
					if err := st.Save(); err != nil {
						t.Fatal(err)
					}
					return
				}
				damageStore(t, p, how == "cut")
			})
		})
	}
}

// FuzzDecodeSnapshot: any bytes decode or are refused, never a panic;
// what decodes lists no dir with no session dir, and no file outside it.
func FuzzDecodeSnapshot(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0})
	f.Add([]byte{1, 3, 1, 2, 3, 1, 0, 0})
	ix := &Index{}
	var sp scratch
	b := cache.AppendBool(nil, false)
	b = cache.AppendStr(b, string(encodeRefs([]ref{{seg: 7, lo: 1, hi: 4}})))
	b = cache.AppendBool(b, false)
	b = cache.AppendUvarint(b, 1)
	b = cache.AppendStr(b, "")
	b = cache.AppendStamp(b, cache.Stamp{Dev: 1, Ino: 2, Size: 3, MtimeNS: 4, CtimeNS: 5})
	b = cache.AppendStr(b, string(encodeDir(nil)))
	b = cache.AppendUvarint(b, 1)
	b = cache.AppendStr(b, "subagents/agent-a.jsonl")
	b = cache.AppendStr(b, search.KindSubagent)
	b = cache.AppendStamp(b, cache.Stamp{Size: 9})
	b = cache.AppendBool(b, false)
	b = cache.AppendStr(b, string(encodeRefs(nil)))
	f.Add(b)
	f.Add([]byte(strings.Replace(string(b), "subagents/agent-a.jsonl", "../../../etc/passwd.jsonl", 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		sn := ix.decodeSnapshot(data, "/p/s", &sp)
		if sn != nil && sn.noDir && len(sn.dirs) > 0 {
			t.Fatal("a snapshot with no session dir and dirs")
		}
		if sn != nil {
			for _, f := range sn.files {
				if !filepath.IsLocal(f.rel) {
					t.Fatalf("a file outside the session dir: %q", f.rel)
				}
			}
		}
		if sn != nil {
			_, _ = decodeRefs(sn.refs)
			for _, f := range sn.files {
				_, _ = decodeRefs(f.refs)
			}
		}
		sp.clear()
	})
}

// TestHandedListings: a session its main transcript decides is answered
// from its snapshot without a look at its dirs; the listings it hands on
// (the record reads them next) are checked when read, so a subagent
// transcript added since, its dir's mtime set back, is listed, and a
// dir removed since reads as missing.
func TestHandedListings(t *testing.T) {
	smallDocs(t)
	racyDir = 0
	dir, cacheDir := t.TempDir(), t.TempDir()
	proj := filepath.Join(dir, "projects", "-home-dev-p")
	var paths []string
	for i := range 3 {
		p := filepath.Join(proj, fmt.Sprintf("%08d-0000-4000-8000-000000000000", i)+".jsonl")
		write(t, p, say("the quokka said hi"))
		write(t, filepath.Join(strings.TrimSuffix(p, ".jsonl"), "subagents", "agent-a1.jsonl"), say("nothing"))
		write(t, filepath.Join(strings.TrimSuffix(p, ".jsonl"), "tool-results", "r1.txt"), "nothing\n")
		paths = append(paths, p)
	}
	cache.Settle()
	o := search.Options{Terms: []string{"quokka"}}
	for range 3 { // build, snapshots written, answered from them
		checkSame(t, cacheDir, paths, o)
	}
	sub := filepath.Join(strings.TrimSuffix(paths[0], ".jsonl"), "subagents")
	keepMtime(t, sub, func() { write(t, filepath.Join(sub, "agent-a2.jsonl"), say("more")) })
	gone := filepath.Join(strings.TrimSuffix(paths[1], ".jsonl"), "subagents")
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	cache.Settle()
	ix := checkSame(t, cacheDir, paths, o)
	if ix.fromSnap.Load() != 3 {
		t.Fatalf("%d sessions answered from snapshots, want 3 (their main transcripts decide)", ix.fromSnap.Load())
	}
	ents, err := ix.ReadDir(sub)
	if err != nil || len(ents) != 2 {
		t.Fatalf("the changed subagents dir, as handed on: %v %v", ents, err)
	}
	if _, err := ix.ReadDir(gone); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the removed subagents dir, as handed on: %v", err)
	}
	ents, err = ix.ReadDir(filepath.Join(strings.TrimSuffix(paths[2], ".jsonl"), "subagents"))
	if err != nil || len(ents) != 1 {
		t.Fatalf("an unchanged subagents dir, as handed on: %v %v", ents, err)
	}
}

// twin runs random queries over paths, changed every tenth of them, with
// a fast path turned off (*on false) and on, each answer checked against
// the scan's (checkSame); used counts what the fast path did, which must
// be nothing while off and something while on. terms, when set, may
// change a query's terms. It returns the cache dir of the runs without.
func twin(t *testing.T, r *rand.Rand, paths []string, n int, on *bool, what string, used func(*Index) int64, terms func(i int, o *search.Options)) string {
	t.Helper()
	with, without := t.TempDir(), t.TempDir()
	t.Cleanup(func() { *on = true })
	var total int64
	for i := range n {
		if i%10 == 9 {
			changeDirs(t, r, paths)
			writeLines(t, paths[r.IntN(len(paths))], r, 3, false)
			cache.Settle()
		}
		o := search.Options{Terms: randomTerms(r), Any: r.IntN(2) == 0}
		if terms != nil {
			terms(i, &o)
		}
		*on = false
		slow := checkSame(t, without, paths, o)
		*on = true
		fast := checkSame(t, with, paths, o)
		if used(slow) != 0 {
			t.Fatalf("%s while turned off", what)
		}
		total += used(fast)
	}
	if total == 0 {
		t.Fatalf("not one %s: the test does not test", what)
	}
	return without
}
