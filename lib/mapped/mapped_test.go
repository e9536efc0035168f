package mapped

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func tempFile(t *testing.T, data string) *os.File {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func mapsHere(t *testing.T) {
	switch runtime.GOOS {
	case "linux", "darwin", "freebsd":
	default:
		t.Skip("memory maps not used here")
	}
}

// TestWindows maps files in windows that are not page multiples, with
// and without overlap: the new bytes of the windows are the file, once,
// and each window's head repeats the overlap before it.
func TestWindows(t *testing.T) {
	mapsHere(t)
	var b strings.Builder
	for i := 0; b.Len() < 20000; i++ {
		b.WriteString(strings.Repeat(string(rune('a'+i%26)), i%7+1))
	}
	data := b.String()[:20000]
	for _, size := range []int{0, 1, 3000, 4096, 8192, 20000} {
		for _, o := range []Options{{Window: 3000}, {Window: 3000, Overlap: 5}, {Window: 4096, Overlap: 4100, Populate: true}, {}} {
			f := tempFile(t, data)
			w := New(f.Fd(), int64(size), o)
			var got strings.Builder
			for {
				win, head, err := w.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				at := got.Len() - head
				if want := min(got.Len(), o.Overlap); head != want {
					t.Fatalf("size %d %+v: head %d, want %d", size, o, head, want)
				}
				if string(win) != data[at:at+len(win)] {
					t.Fatalf("size %d %+v: window at %d differs from the file", size, o, at)
				}
				got.Write(win[head:])
				if w.Pos() != int64(got.Len()) {
					t.Fatalf("size %d %+v: Pos %d after %d bytes", size, o, w.Pos(), got.Len())
				}
			}
			w.Close()
			if got.String() != data[:size] {
				t.Fatalf("size %d %+v: %d bytes handed on, want the file's first %d", size, o, got.Len(), size)
			}
		}
	}
}

// TestGuardShrunk truncates a file while its window is read: the pages
// past the new end are gone, and touching them gives ErrShrank, not a
// crash; a panic of fn's own goes on.
func TestGuardShrunk(t *testing.T) {
	mapsHere(t)
	page := os.Getpagesize()
	f := tempFile(t, strings.Repeat("x", 4*page))
	w := New(f.Fd(), int64(4*page), Options{})
	defer w.Close()
	win, _, err := w.Next()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	err = w.Guard(func() error {
		if err := os.Truncate(f.Name(), 0); err != nil {
			t.Fatal(err)
		}
		for _, c := range win[2*page:] {
			sum += int(c)
		}
		return nil
	})
	if !errors.Is(err, ErrShrank) {
		t.Fatalf("got %v (sum %d), want %v", err, sum, ErrShrank)
	}
	defer func() {
		if p := recover(); p != "own" {
			t.Fatalf("recovered %v, want fn's own panic", p)
		}
	}()
	_ = w.Guard(func() error { panic("own") })
}

// TestGuardPassesErrors: fn's error comes back as it is.
func TestGuardPassesErrors(t *testing.T) {
	boom := errors.New("boom")
	w := New(0, 0, Options{})
	if err := w.Guard(func() error { return boom }); err != boom {
		t.Fatalf("got %v", err)
	}
}
