package searchindex

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/internal/fulldisk"
	"github.com/ccpipe/ccpipe/lib/search"
)

// damaged builds an index of a corpus, damages it with fn, and checks
// that queries then give the scan's answer (and that they match some
// sessions, so a wrong answer would show).
func damaged(t *testing.T, fn func(t *testing.T, cache string)) (cacheDir string, paths []string) {
	t.Helper()
	smallDocs(t)
	r := rand.New(rand.NewPCG(5, 6))
	cacheDir = t.TempDir()
	paths = corpus(t, r, t.TempDir(), 30)
	cache.Settle() // dirs listed in their mtime's tick are not kept: the damage below needs kept listings
	queries := []search.Options{
		{Terms: []string{"flakytest"}}, {Terms: []string{"Straße"}}, {Terms: []string{"w1", "error"}},
		{Terms: []string{"ΣΊΣΥΦΟΣ", "timeout", "café"}, Any: true},
	}
	for _, o := range queries {
		checkSame(t, cacheDir, paths, o)
	}
	fn(t, cacheDir)
	for _, o := range queries {
		if len(searchWith(t, "", paths, o)) == 0 {
			t.Fatalf("%q matches nothing: a test of nothing", o.Terms)
		}
		checkSame(t, cacheDir, paths, o)
	}
	return cacheDir, paths
}

// manifest is the index's store file in the cache dir.
func manifest(dir string) string { return cache.File(dir, Name, ".cache") }

// segDir is the index's segments dir in the cache dir.
func segDir(dir string) string { return cache.File(dir, Name, "") }

func segments(t *testing.T, cache string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(segDir(cache), "*.trgm"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no segment in %s (%v)", cache, err)
	}
	return m
}

func TestIndexMissing(t *testing.T) {
	damaged(t, func(t *testing.T, cache string) {
		for _, p := range segments(t, cache) {
			os.Remove(p)
		}
	})
}

func TestIndexManifestMissing(t *testing.T) {
	damaged(t, func(t *testing.T, cache string) { os.Remove(manifest(cache)) })
}

func TestIndexCorrupt(t *testing.T) {
	for _, at := range []float64{0.01, 0.2, 0.5, 0.7, 0.9, 0.99} {
		damaged(t, func(t *testing.T, cache string) {
			for _, p := range segments(t, cache) {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				for i := int(float64(len(b)) * at); i < len(b) && i < int(float64(len(b))*at)+8; i++ {
					b[i] ^= 0x5a
				}
				if err := os.WriteFile(p, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func TestIndexTruncated(t *testing.T) {
	damaged(t, func(t *testing.T, cache string) {
		for _, p := range segments(t, cache) {
			fi, _ := os.Stat(p)
			if err := os.Truncate(p, fi.Size()/2); err != nil {
				t.Fatal(err)
			}
		}
		m := manifest(cache)
		fi, _ := os.Stat(m)
		if err := os.Truncate(m, fi.Size()-3); err != nil {
			t.Fatal(err)
		}
	})
}

func TestIndexManifestCorrupt(t *testing.T) {
	damaged(t, func(t *testing.T, cache string) {
		if err := os.WriteFile(manifest(cache), []byte("ccpipe-cache-2\ngarbage"), 0o600); err != nil {
			t.Fatal(err)
		}
	})
}

// TestIndexOtherVersion: an index another build wrote is not read.
func TestIndexOtherVersion(t *testing.T) {
	old := formatVersion
	t.Cleanup(func() { formatVersion = old })
	damaged(t, func(t *testing.T, cache string) { formatVersion = "grep-index-other" })
}

// TestIndexStale: files rewritten, shrunk, replaced, grown, and a
// segment that is no longer the one the manifest named.
func TestIndexStale(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	_, paths := damaged(t, func(t *testing.T, cache string) {})
	cache := t.TempDir()
	checkSame(t, cache, paths, search.Options{Terms: []string{"error"}})
	writeLines(t, paths[0], r, 2, false)  // shrunk, rewritten
	os.Remove(paths[1])                   // replaced
	writeLines(t, paths[1], r, 50, false) //
	f, _ := os.OpenFile(paths[2], os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(record(r, 99) + "\n" + record(r, 100)[:30]) // grown, a line still being written
	f.Close()
	for _, term := range []string{"error", "flakytest", "Straße", "w3"} {
		checkSame(t, cache, paths, search.Options{Terms: []string{term}})
	}
	f, _ = os.OpenFile(paths[2], os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(record(r, 101)[30:] + "\n")
	f.Close()
	for _, term := range []string{"error", "flakytest", "Straße", "w3"} {
		checkSame(t, cache, paths, search.Options{Terms: []string{term}})
	}
}

// TestIndexUnwritable: a cache dir that cannot be made, a read-only one
// holding an index, and a full disk: the scan's answer, and no error
// but the one Close reports.
func TestIndexUnwritable(t *testing.T) {
	smallDocs(t)
	r := rand.New(rand.NewPCG(9, 10))
	paths := corpus(t, r, t.TempDir(), 20)
	cache.Settle() // indexed settled, so the read-only run finds every file Fresh
	file := filepath.Join(t.TempDir(), "file")
	write(t, file, "x")
	o := search.Options{Terms: []string{"error"}}
	if ix := checkSame(t, filepath.Join(file, "cache"), paths, o); ix.Answered.Load() != 0 || ix.Writable() {
		t.Fatalf("an index under a file answered %d", ix.Answered.Load())
	}

	ro := fulldisk.Mount(t, "4m")
	checkSame(t, ro, paths, o)
	more := corpus(t, r, t.TempDir(), 3)
	if out, err := exec.Command("mount", "-o", "remount,ro", ro).CombinedOutput(); err != nil {
		t.Skipf("cannot remount read-only: %v %s", err, out)
	}
	ix := checkSame(t, ro, append(paths, more...), search.Options{Terms: []string{"error"}})
	if ix.Answered.Load() != int64(len(paths)) || ix.Scanned.Load() != int64(len(more)) {
		t.Fatalf("read-only index: %d answered, %d scanned", ix.Answered.Load(), ix.Scanned.Load())
	}

	full := fulldisk.Mount(t, "64k")
	fulldisk.Fill(t, full)
	ix = checkSame(t, full, paths, o)
	if ix.saveErr == nil || ix.Answered.Load() != int64(len(paths)) {
		t.Fatalf("full disk: saved (%v), %d answered", ix.saveErr, ix.Answered.Load())
	}
	checkSame(t, full, paths, search.Options{Terms: []string{"Straße"}})
}

// TestIndexDirListingsDamaged: the kept directory listings flipped in
// the middle, then cut short: the store is not used, the dirs are read.
func TestIndexDirListingsDamaged(t *testing.T) {
	for _, cut := range []bool{false, true} {
		damaged(t, func(t *testing.T, dir string) { damageStore(t, cache.File(dir, dirsName, ".cache"), cut) })
	}
}

// damageStore cuts a store file to half its size, or flips 8 bytes in its
// middle.
func damageStore(t *testing.T, p string, cut bool) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil || len(b) < 64 {
		t.Fatalf("no store to damage at %s: %v (%d bytes)", p, err, len(b))
	}
	if cut {
		b = b[:len(b)/2]
	} else {
		for i := len(b) / 2; i < len(b)/2+8; i++ {
			b[i] ^= 0x5a
		}
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
