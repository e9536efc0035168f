package cache

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestMapped: a mapped store (OpenMapped) answers as Open's does, its
// Data a copy and Guard's reads in place; cut shorter by another program
// while mapped, its reads fail as a miss (Data), ErrCut (Guard) and no
// save (Save), never a crash.
func TestMapped(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(p, []byte("a\nb\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cacheDir := filepath.Join(dir, "cache")
	data := strings.Repeat("facts ", 4096) // past a page
	s := Open(cacheDir, "test", "v1")
	put(t, s, p, data)
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	for _, open := range []func(dir, name, version string) *Store{Open, OpenMapped} {
		s := open(cacheDir, "test", "v1")
		e, state := lookup(t, s, p)
		if state != Fresh {
			t.Fatalf("lookup: %v", state)
		}
		b, ok := s.Data(e)
		if !ok || string(b) != data {
			t.Fatalf("Data: %v, %d bytes", ok, len(b))
		}
		var in []byte
		if err := s.Guard(func() error { in = bytes.Clone(e.Data); return nil }); err != nil || string(in) != data {
			t.Fatalf("Guard: %v, %d bytes", err, len(in))
		}
	}
	if runtime.GOOS != "linux" {
		return // stores are read, not mapped
	}
	s = OpenMapped(cacheDir, "test", "v1")
	e, state := lookup(t, s, p)
	if state != Fresh || !s.holds(e.Data) {
		t.Fatalf("lookup: %v, mapped %v", state, s.holds(e.Data))
	}
	if err := os.Truncate(s.path, 0); err != nil {
		t.Fatal(err)
	}
	if b, ok := s.Data(e); ok {
		t.Fatalf("Data of a cut store: %d bytes", len(b))
	}
	if err := s.Guard(func() error { _ = bytes.Count(e.Data, []byte("f")); return nil }); !errors.Is(err, ErrCut) {
		t.Fatalf("Guard of a cut store: %v", err)
	}
	paniced := func() (p any) {
		defer func() { p = recover() }()
		_ = s.Guard(func() error { panic("not a fault") })
		return nil
	}()
	if paniced != "not a fault" {
		t.Fatalf("Guard swallowed another panic: %v", paniced)
	}
	s.Put(p+"2", &Entry{Data: []byte("more")})
	if err := s.Save(); !errors.Is(err, ErrCut) {
		t.Fatalf("Save of a cut store: %v", err)
	}
}
