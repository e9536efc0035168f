package cache

import (
	"bytes"
	"os"
	"testing"
)

// entryData is what the store holds of path, "" when nothing.
func entryData(s *Store, path string) string {
	s.wait()
	if e := s.entries[path]; e != nil {
		return string(e.Data)
	}
	return ""
}

// TestJournal: a grown entry's bytes after those it keeps are appended to
// the store, not the store written again; a store read back holds every
// entry as it was put. A record cut by a crash, or damaged, is not
// applied (the entry reads as before that run: read on or again, never
// a wrong answer), and the next save writes the store whole.
func TestJournal(t *testing.T) {
	dir := t.TempDir()
	store := File(dir, "test", ".cache")
	// The files are there: a store drops the entries of files gone.
	pa, pb, pc := dir+"/a", dir+"/b", dir+"/c"
	for _, p := range []string{pa, pb, pc} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := Open(dir, "test", "v1")
	s.Put(pa, &Entry{Offset: 1, Stamp: Stamp{Size: 1}, Data: []byte("aaaa-old")})
	s.Put(pb, &Entry{Offset: 1, Stamp: Stamp{Size: 1}, Data: bytes.Repeat([]byte("b"), 4000)})
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	base, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}

	s = Open(dir, "test", "v1")
	s.Extend(pa, &Entry{Offset: 2, Stamp: Stamp{Size: 2}, Data: []byte("aaaa-new!")}, 5)
	s.Put(pc, &Entry{Offset: 1, Stamp: Stamp{Size: 1}, Data: []byte("c")})
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	grown, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	if len(grown) <= len(base) || string(grown[:len(base)]) != string(base) {
		t.Fatalf("the store was written again, not appended to (%d bytes, then %d)", len(base), len(grown))
	}
	s = Open(dir, "test", "v1")
	if a, b, c := entryData(s, pa), entryData(s, pb), entryData(s, pc); a != "aaaa-new!" || b[0] != 'b' || c != "c" {
		t.Fatalf("read back: %q %q %q", a, b, c)
	}
	if st := s.Stats(); st.Corrupt || st.Entries != 3 {
		t.Fatalf("stats %+v", st)
	}

	// A second run extends /a again: its record extends the first's.
	s.Extend(pa, &Entry{Offset: 3, Stamp: Stamp{Size: 3}, Data: []byte("aaaa-new!+")}, 9)
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	if a := entryData(Open(dir, "test", "v1"), pa); a != "aaaa-new!+" {
		t.Fatalf("after two appends: %q", a)
	}
	two, _ := os.ReadFile(store)

	// Cut: the last record goes; /a is as the first append left it.
	for _, damage := range []func([]byte) []byte{
		func(b []byte) []byte { return b[:len(b)-3] },
		func(b []byte) []byte { b[len(b)-12] ^= 1; return b },
	} {
		if err := os.WriteFile(store, damage(append([]byte(nil), two...)), 0o600); err != nil {
			t.Fatal(err)
		}
		s = Open(dir, "test", "v1")
		if a := entryData(s, pa); a != "aaaa-new!" {
			t.Fatalf("a damaged last record: /a reads %q", a)
		}
		if !s.whole {
			t.Fatal("a damaged journal is appended to")
		}
	}
}

// TestJournalOtherState: two runs that extended one entry from the same
// state (each appended its record) leave it dropped, not one's bytes kept
// under the other's.
func TestJournalOtherState(t *testing.T) {
	entries := map[string]*Entry{"/a": {Data: []byte("old-data"), gen: 5}}
	rec := func(prev, gen uint64, data string) []byte {
		b := []byte{}
		b = append(b, 0, 0, 0, 0)
		b = putStr(b, "/a")
		b = AppendU64(b, prev)
		b = AppendUvarint(b, 4)
		b = AppendStamp(b, Stamp{})
		b = AppendVarint(b, 0)
		b = AppendU64(b, 0)
		b = AppendVarint(b, 0)
		b = AppendU64(b, gen)
		b = AppendUvarint(b, uint64(len(data)))
		b = append(b, data...)
		return sealRecord(b)
	}
	j := append(rec(5, 7, "one"), rec(5, 9, "two")...)
	if !applyJournal(entries, j, false, false) {
		t.Fatal("journal did not read")
	}
	if e := entries["/a"]; e != nil {
		t.Fatalf("/a kept as %q", e.Data)
	}
	entries = map[string]*Entry{"/a": {Data: []byte("old-data"), gen: 5}}
	if !applyJournal(entries, append(rec(5, 7, "one"), rec(7, 9, "two")...), false, false) || string(entries["/a"].Data) != "old-two" {
		t.Fatalf("a record extending the one before: %+v", entries["/a"])
	}
}
