package searchindex

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	cachepkg "github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/search"
)

// countReadDir counts the directories read past the kept listings.
func countReadDir(t *testing.T) *atomic.Int64 {
	var n atomic.Int64
	old := osReadDir
	osReadDir = func(dir string) ([]os.DirEntry, error) {
		n.Add(1)
		return old(dir)
	}
	t.Cleanup(func() { osReadDir = old })
	return &n
}

// TestDirListingsKept: a warm search reads no directory; a subagent
// transcript added to a kept subagents dir whose mtime is then set back
// (only the ctime moved) is found, as the scan finds it.
func TestDirListingsKept(t *testing.T) {
	smallDocs(t)
	reads := countReadDir(t)
	r := rand.New(rand.NewPCG(21, 22))
	dir, cache := t.TempDir(), t.TempDir()
	paths := corpus(t, r, dir, 30)
	cachepkg.Settle() // a dir listed in the tick it was written in is racy, not kept
	checkSame(t, cache, paths, search.Options{Terms: []string{"error"}})
	if reads.Load() == 0 {
		t.Fatal("the first search read no directory: a test of nothing")
	}
	reads.Store(0)
	checkSame(t, cache, paths, search.Options{Terms: []string{"timeout"}})
	if n := reads.Load(); n != 0 {
		t.Fatalf("a warm search read %d directories, all unchanged", n)
	}
	var sub string
	for _, p := range paths {
		if d := filepath.Join(strings.TrimSuffix(p, ".jsonl"), "subagents"); isDir(d) {
			sub = d
			break
		}
	}
	if sub == "" {
		t.Fatal("no session with subagents")
	}
	fi, err := os.Stat(sub)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // past the clock tick of the listing
	write(t, filepath.Join(sub, "agent-late.jsonl"), mustJSON(map[string]any{"type": "user", "uuid": "u",
		"message": map[string]any{"role": "user", "content": "zqxlateword"}})+"\n")
	if err := os.Chtimes(sub, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if fi2, _ := os.Stat(sub); !fi2.ModTime().Equal(fi.ModTime()) {
		t.Fatal("mtime not set back")
	}
	got := checkSame(t, cache, paths, search.Options{Terms: []string{"zqxlateword"}})
	if got.Answered.Load() == 0 {
		t.Fatal("the index answered for no session")
	}
	if n := len(searchWith(t, cache, paths, search.Options{Terms: []string{"zqxlateword"}})); n != 1 {
		t.Fatalf("the new subagent transcript's word is in %d sessions, want 1", n)
	}
}

// TestDirListingsYoung: a directory changed less than racyDir before it
// is read has its listing read every time, never kept.
func TestDirListingsYoung(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	dir, cdir := t.TempDir(), t.TempDir()
	paths := corpus(t, r, dir, 20)
	kept := func() int {
		s := cachepkg.Open(cdir, dirsName, formatVersion)
		n := 0
		s.Each(func(string, *cachepkg.Entry) { n++ })
		return n
	}
	checkSame(t, cdir, paths, search.Options{Terms: []string{"error"}})
	if n := kept(); n != 0 {
		t.Fatalf("%d listings of directories made just now were kept", n)
	}
	// The same directories, taken as old enough: kept (the check above
	// can fail).
	old := racyDir
	racyDir = -time.Hour
	t.Cleanup(func() { racyDir = old })
	cachepkg.Settle() // a stamp taken in the tick of the change is racy: never kept
	checkSame(t, cdir, paths, search.Options{Terms: []string{"error"}})
	if kept() == 0 {
		t.Fatal("no listing kept even with every directory taken as old")
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
