package cache

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A rewrite that keeps the size is a miss, never "grown" (its tail hash
// still matches when the change is before the hashed bytes) nor "fresh"
// (cp -p and touch -r set the mtime back; the ctime they cannot).
func TestRewriteSameSize(t *testing.T) {
	long := strings.Repeat("x", 2*tailLen)
	orig := "a " + long + "\nb " + long + "\n"
	for _, tc := range []struct {
		name      string
		keepMtime bool
	}{{"in place", false}, {"mtime kept (touch -r)", true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "t.jsonl")
			if err := os.WriteFile(p, []byte(orig), 0o600); err != nil {
				t.Fatal(err)
			}
			fi, _ := os.Stat(p)
			s := Open(dir, "test", "v1")
			put(t, s, p, "facts")
			time.Sleep(10 * time.Millisecond) // a ctime of its own
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt([]byte("Z"), 0); err != nil { // before the hashed tail
				t.Fatal(err)
			}
			f.Close()
			if tc.keepMtime {
				if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
					t.Fatal(err)
				}
			}
			if _, st := lookup(t, s, p); st != Miss {
				t.Fatalf("state %v, want Miss", st)
			}
			if _, ok := s.Unchanged(p, stamp(t, p)); ok {
				t.Fatal("Unchanged took a rewritten file")
			}
		})
	}
}

// storeBytes is a store with its length and checksum right, whatever the
// entry says.
func storeBytes(e *Entry, path, version string) []byte {
	return encode(map[string]*Entry{path: e}, Version(version)) // as Open reads it
}

// An entry with a valid checksum and an offset outside its file (crafted)
// never reaches a reader: the store is not used, the file read whole.
func TestCraftedOffset(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(p, []byte("a\nb\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st := stamp(t, p)
	for _, off := range []int64{-5, st.Size + 10} {
		b := storeBytes(&Entry{Stamp: st, Offset: off, Data: []byte("x")}, p, "v1")
		if err := os.WriteFile(File(dir, "test", ".cache"), b, 0o600); err != nil {
			t.Fatal(err)
		}
		s := Open(dir, "test", "v1")
		if _, state := lookup(t, s, p); state != Miss {
			t.Fatalf("offset %d: state %v, want Miss", off, state)
		}
		if off < 0 && !s.Stats().Corrupt {
			t.Errorf("offset %d: store not reported corrupt", off)
		}
	}
	// Lookup itself never hashes before 0 (an entry put by a caller).
	s := Open(t.TempDir(), "test", "v1")
	s.Put(p, &Entry{Stamp: Stamp{Dev: st.Dev, Ino: st.Ino, Size: st.Size + 1}, Offset: -3})
	if _, state := lookup(t, s, p); state != Miss {
		t.Fatalf("negative offset: %v", state)
	}
}

// A symlink where the store lives is replaced, its target never written;
// a FIFO there neither blocks the load nor the save.
func TestStoreNotFollowed(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.txt")
	if err := os.WriteFile(victim, []byte("the user's file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(p, []byte("a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cacheDir := filepath.Join(dir, "cache")
	os.Mkdir(cacheDir, 0o700)
	store := File(cacheDir, "test", ".cache")
	if err := os.Symlink(victim, store); err != nil {
		t.Fatal(err)
	}
	s := Open(cacheDir, "test", "v1")
	put(t, s, p, "facts")
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "the user's file\n" {
		t.Fatalf("the link's target was written: %q", b)
	}
	if fi, err := os.Lstat(store); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("store not replaced by a regular file: %v %v", fi, err)
	}

	os.Remove(store)
	if err := syscall.Mkfifo(store, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan Stats)
	go func() {
		s := Open(cacheDir, "test", "v1")
		put(t, s, p, "facts")
		if err := s.Save(); err != nil {
			t.Error(err)
		}
		done <- s.Stats()
	}()
	select {
	case st := <-done:
		if !st.Corrupt {
			t.Errorf("a FIFO store not reported: %+v", st)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a FIFO where the store lives hangs the cache")
	}
	if fi, err := os.Lstat(store); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("FIFO not replaced by a regular file: %v %v", fi, err)
	}
	s = Open(cacheDir, "test", "v1")
	if _, state := lookup(t, s, p); state != Fresh {
		t.Fatalf("replaced store: %v", state)
	}
}

// An 8 GB sparse store (or one whose header claims more than it holds)
// is refused on its header and size, before a byte of it is allocated.
func TestHugeStoreNotRead(t *testing.T) {
	dir := t.TempDir()
	store := File(dir, "test", ".cache")
	for _, tc := range []struct {
		name string
		head []byte
	}{
		{"sparse zeros", nil},
		{"header claims the size", binary.LittleEndian.AppendUint64([]byte(magic), 8<<30)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(store, tc.head, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(store, 8<<30); err != nil {
				t.Skipf("no sparse file here: %v", err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			s := Open(dir, "test", "v1")
			st := s.Stats()
			runtime.ReadMemStats(&after)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
				t.Fatalf("allocated %d bytes for a store it cannot use", grew)
			}
			if !st.Corrupt || st.Entries != 0 {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

// A store's length field is checked on decode too (a truncated copy
// with a recomputed checksum is still refused).
func TestLengthChecked(t *testing.T) {
	b := encode(map[string]*Entry{"/a": {Offset: 1, Stamp: Stamp{Size: 2}}}, "v1")
	if _, err := decode(b, "v1", false, false); err != nil {
		t.Fatal(err)
	}
	short := bytes.Clone(b[:len(b)-4])
	binary.LittleEndian.PutUint64(short[len(magic):], uint64(len(b)+1))
	short = binary.LittleEndian.AppendUint32(short, crc32.Checksum(short, storeCRC))
	if _, err := decode(short, "v1", false, false); err == nil {
		t.Fatal("a length that is not the file's was accepted")
	}
}

// Judge, the one identity rule: what a rewrite cannot keep (the ctime,
// the inode) makes a miss; only the same file, longer, is grown.
func TestJudge(t *testing.T) {
	old := Stamp{Dev: 1, Ino: 2, Size: 100, MtimeNS: 5, CtimeNS: 6}
	with := func(f func(*Stamp)) Stamp { s := old; f(&s); return s }
	for _, c := range []struct {
		name   string
		old    Stamp
		offset int64
		now    Stamp
		want   State
	}{
		{"unchanged", old, 100, old, Fresh},
		{"rewritten, size and mtime kept", old, 100, with(func(s *Stamp) { s.CtimeNS = 7 }), Miss},
		{"grown", old, 100, with(func(s *Stamp) { s.Size, s.MtimeNS, s.CtimeNS = 150, 8, 8 }), Grown},
		{"grown, mtime set back", old, 100, with(func(s *Stamp) { s.Size, s.CtimeNS = 150, 8 }), Grown},
		{"shrunk", old, 100, with(func(s *Stamp) { s.Size, s.CtimeNS = 50, 8 }), Miss},
		{"replaced", old, 100, with(func(s *Stamp) { s.Ino = 3 }), Miss},
		{"offset past the file", old, 120, old, Miss},
		{"negative offset", old, -1, old, Miss},
		{"read partly, more since", with(func(s *Stamp) { s.Size = -1 }), 60, old, Grown},
		{"read partly, shrunk under the offset", with(func(s *Stamp) { s.Size = -1 }), 160, old, Miss},
	} {
		if got := Judge(c.old, c.offset, c.now); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
