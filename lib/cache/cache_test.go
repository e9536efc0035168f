package cache

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func stamp(t *testing.T, path string) Stamp {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return StampOf(fi)
}

// put caches path as read to its end, with data.
func put(t *testing.T, s *Store, path, data string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	Settle() // a file written just now has a racy stamp, which is never Fresh
	st := stamp(t, path)
	h, err := TailHash(f, st.Size)
	if err != nil {
		t.Fatal(err)
	}
	s.Put(path, &Entry{Stamp: st, Offset: st.Size, Tail: h, Data: []byte(data)})
}

func lookup(t *testing.T, s *Store, path string) (*Entry, State) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return s.Lookup(path, stamp(t, path), f)
}

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(path string) error
		want   State
	}{
		{"unchanged", func(string) error { return nil }, Fresh},
		{"appended", func(p string) error { return appendTo(p, "c\n") }, Grown},
		{"shrunk", func(p string) error { return os.WriteFile(p, []byte("a\n"), 0o600) }, Miss},
		{"rewritten longer", func(p string) error { return os.WriteFile(p, []byte("x\nb\nc\n"), 0o600) }, Miss},
		{"rewritten same size", func(p string) error { return os.WriteFile(p, []byte("a\nx\n"), 0o600) }, Miss},
		{"replaced by another file", func(p string) error {
			q := p + ".new"
			if err := os.WriteFile(q, []byte("a\nb\nc\n"), 0o600); err != nil {
				return err
			}
			return os.Rename(q, p)
		}, Miss},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "t.jsonl")
			if err := os.WriteFile(p, []byte("a\nb\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			s := Open(dir, "test", "v1")
			put(t, s, p, "facts")
			if err := tc.change(p); err != nil {
				t.Fatal(err)
			}
			e, got := lookup(t, s, p)
			if got != tc.want {
				t.Fatalf("state %v, want %v", got, tc.want)
			}
			if got != Miss && string(e.Data) != "facts" {
				t.Fatalf("data %q", e.Data)
			}
		})
	}
}

func appendTo(p, s string) error {
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func TestSaveReopen(t *testing.T) {
	dir := t.TempDir()
	p, q := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	for _, f := range []string{p, q} {
		if err := os.WriteFile(f, []byte("line\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := Open(dir, "test", "v1")
	put(t, s, p, "A")
	put(t, s, q, "B")
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(q); err != nil {
		t.Fatal(err)
	}
	s = Open(dir, "test", "v1")
	if e, st := lookup(t, s, p); st != Fresh || string(e.Data) != "A" {
		t.Fatalf("reopened: %v %v", st, e)
	}
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	if got := s.Stats(); got.Entries != 1 || got.Dropped != 1 {
		t.Fatalf("the gone file's entry is kept: %+v", got)
	}
	// Another version starts empty.
	if _, st := lookup(t, Open(dir, "test", "v2"), p); st != Miss {
		t.Fatalf("another version's entry used: %v", st)
	}
}

func TestCorruptStoreIgnored(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(p, []byte("line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Open(dir, "test", "v1")
	put(t, s, p, "A")
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(File(dir, "test", ".cache"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(good); i++ {
		for _, b := range [][]byte{good[:i], flip(good, i)} {
			if err := os.WriteFile(File(dir, "test", ".cache"), b, 0o600); err != nil {
				t.Fatal(err)
			}
			s := Open(dir, "test", "v1")
			if _, st := lookup(t, s, p); st != Miss {
				t.Fatalf("damaged store (byte %d) used", i)
			}
			if !s.Stats().Corrupt {
				t.Fatalf("damaged store (byte %d) not reported", i)
			}
		}
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x40
	return c
}

func TestBound(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir, "test", "v1")
	for i := 0; i < 10; i++ {
		p := filepath.Join(dir, string(rune('a'+i))+".jsonl")
		if err := os.WriteFile(p, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		put(t, s, p, string(make([]byte, 1000)))
	}
	s.SetMaxBytes(5000)
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.Bytes > 5000 || st.Entries == 0 || st.Dropped == 0 {
		t.Fatalf("not bounded: %+v", st)
	}
	fi, err := os.Stat(File(dir, "test", ".cache"))
	if err != nil || fi.Size() > 6000 {
		t.Fatalf("store file: %v %v", fi, err)
	}
}

// FuzzDecode: any bytes as a store file are read without a panic, and
// what is accepted encodes back to the same bytes.
func FuzzDecode(f *testing.F) {
	f.Add(encode(map[string]*Entry{"/a": {Stamp: Stamp{1, 2, 3, 4, 5}, Offset: 3, Tail: 9, Data: []byte("xyz")}}, "v1"))
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, err := decode(b, "v1", false, false)
		if err != nil {
			return
		}
		if got := encode(entries, "v1"); string(got) != string(b) {
			t.Fatalf("round trip differs")
		}
	})
}

// TestConcurrentWriters: stores of one file saved at once (two cron jobs,
// a status line per pane) leave a whole store, never a mix: each save is
// one of them, and every entry read back checks out.
func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := 0; i < 8; i++ {
		p := filepath.Join(dir, string(rune('a'+i))+".jsonl")
		if err := os.WriteFile(p, []byte("line\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	for round := 0; round < 20; round++ {
		done := make(chan error, len(paths))
		for i, p := range paths {
			go func() {
				s := Open(dir, "test", "v1")
				f, err := os.Open(p)
				if err != nil {
					done <- err
					return
				}
				defer f.Close()
				st, _ := f.Stat()
				h, _ := TailHash(f, st.Size())
				s.Put(p, &Entry{Stamp: StampOf(st), Offset: st.Size(), Tail: h, Data: []byte(string(rune('A' + i)))})
				done <- s.Save()
			}()
		}
		for range paths {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		s := Open(dir, "test", "v1")
		if s.Stats().Corrupt || s.Stats().Entries == 0 {
			t.Fatalf("round %d: store %+v", round, s.Stats())
		}
		for i, p := range paths {
			if e, st := lookup(t, s, p); st != Miss && string(e.Data) != string(rune('A'+i)) {
				t.Fatalf("round %d: %s holds %q", round, p, e.Data)
			}
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.tmp*")); len(m) > 0 {
		t.Fatalf("temporary files left: %v", m)
	}
}

// TestStatPath: StatPath says what os.Stat says, of a path short enough
// for its copy on the stack and of one too long for it, relative too.
func TestStatPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("twelve bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	long := dir + strings.Repeat("/.", 300) + "/f"
	rel, err := filepath.Rel(".", file)
	if err != nil {
		rel = file
	}
	for _, p := range []string{file, dir, long, rel} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		st, mode, err := StatPath(p)
		if err != nil || st != StampOf(fi) || mode != fi.Mode().Type() {
			t.Errorf("%s: %+v %v %v; os.Stat %+v %v", p, st, mode, err, StampOf(fi), fi.Mode().Type())
		}
	}
	if _, _, err := StatPath(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if _, _, err := StatPath(file + "\x00x"); err == nil {
		t.Error("a path with a NUL byte: no error")
	}
}

// TestRacyStamp: a stamp taken within RacyWindow of the file's ctime is
// never Fresh, even against itself: a same-size rewrite with its mtime set
// back, landing in the ctime's tick, leaves stat unchanged, and only a
// read can tell it (git's "racily clean" index entries). Once the window
// is past, the same file is Fresh again.
func TestRacyStamp(t *testing.T) {
	now := time.Now().UnixNano()
	young := settle(Stamp{Size: 4, MtimeNS: now - 5e9, CtimeNS: now - int64(time.Millisecond)}, now)
	old := settle(Stamp{Size: 4, MtimeNS: now - 5e9, CtimeNS: now - int64(time.Second)}, now)
	future := settle(Stamp{Size: 4, MtimeNS: now, CtimeNS: now + int64(time.Hour)}, now)
	if !young.Racy() || old.Racy() || !future.Racy() {
		t.Fatalf("racy: young %v, old %v, future (a clock set back) %v", young.Racy(), old.Racy(), future.Racy())
	}
	if got := Judge(young, young.Size, young); got == Fresh {
		t.Errorf("a racy stamp against itself: %v, want not Fresh", got)
	}
	if got := Judge(old, old.Size, old); got != Fresh {
		t.Errorf("a settled stamp against itself: %v, want Fresh", got)
	}
	settled := young
	settled.CtimeNS = -1 - young.CtimeNS
	if got := Judge(young, young.Size, settled); got != Miss {
		t.Errorf("a racy stamp, the same file later: %v, want Miss (read again)", got)
	}
	// Same: a read that outlasts the window (racy before, settled after)
	// did not see the file change; any other field that moved did.
	if !young.Same(settled) || !settled.Same(young) || !young.Same(young) {
		t.Errorf("racy and settled stamps of one state: not Same")
	}
	for _, moved := range []func(*Stamp){
		func(s *Stamp) { s.Size++ }, func(s *Stamp) { s.MtimeNS++ }, func(s *Stamp) { s.CtimeNS-- }, func(s *Stamp) { s.Ino++ },
	} {
		other := young
		moved(&other)
		if young.Same(other) || settled.Same(other) {
			t.Errorf("%+v and %+v: Same, want a change seen", young, other)
		}
	}

	// End to end: a file stamped in the tick it was written is read
	// again by the next lookup; after that it is Fresh.
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(p, []byte("a\nb\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st := stamp(t, p)
	if !st.Racy() {
		t.Skip("the file's ctime is not within RacyWindow of its write (a coarse clock)")
	}
	s := Open(dir, "test", "v1")
	s.Put(p, &Entry{Stamp: st, Offset: st.Size, Data: []byte("facts")})
	Settle()
	if _, got := lookup(t, s, p); got != Miss {
		t.Fatalf("racy entry: %v, want Miss", got)
	}
	put(t, s, p, "facts")
	if _, got := lookup(t, s, p); got != Fresh {
		t.Fatalf("settled entry: %v, want Fresh", got)
	}
}

// TestSeal: a store checked whole by a run is sealed, and the next run
// reads it without the checksums; a store written, damaged or replaced
// since (at once, or after the racy window) is checked again, and a
// damaged one is still not used.
func TestSeal(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(p, []byte("line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Open(dir, "test", "v1")
	put(t, s, p, "A")
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	store := File(dir, "test", ".cache")
	opened := func() *Store {
		s := Open(dir, "test", "v1")
		s.wait()
		return s
	}
	if s := opened(); s.sealed {
		t.Fatal("a store just written (a racy stamp) read as sealed")
	}
	Settle()
	if s := opened(); s.sealed || s.Stats().Corrupt {
		t.Fatal("the first settled read is sealed before it was checked")
	}
	s = Open(dir, "test", "v1")
	if e, st := lookup(t, s, p); !s.sealed || st != Fresh || string(e.Data) != "A" {
		t.Fatalf("the sealed store: sealed %v, %v %v", s.sealed, st, e)
	}
	good, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	// Damaged in place, the same size, at once and after the window.
	for _, settle := range []bool{false, true} {
		for _, i := range []int{len(good) - 6, len(good) - 2, len(magic) + 9} {
			if err := os.WriteFile(store, flip(good, i), 0o600); err != nil {
				t.Fatal(err)
			}
			if settle {
				Settle()
			}
			s := Open(dir, "test", "v1")
			if _, st := lookup(t, s, p); st != Miss || s.sealed || !s.Stats().Corrupt {
				t.Fatalf("damaged store (byte %d, settled %v): %v, sealed %v", i, settle, st, s.sealed)
			}
			if err := os.WriteFile(store, good, 0o600); err != nil {
				t.Fatal(err)
			}
			Settle()
			_ = opened() // checks and seals it again
			if s := opened(); !s.sealed {
				t.Fatal("restored store not sealed")
			}
		}
	}
	// A seal that does not read, or of another stamp, is no seal.
	for _, seal := range [][]byte{nil, []byte("junk"), flip(mustRead(t, store+".seal"), len(sealMagic)+1)} {
		if err := os.WriteFile(store+".seal", seal, 0o600); err != nil {
			t.Fatal(err)
		}
		if s := opened(); s.sealed {
			t.Fatalf("seal %q taken", seal)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
