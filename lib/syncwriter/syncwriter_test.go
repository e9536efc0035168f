package syncwriter

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
)

// TestWholeWrites: writes from many goroutines, and a copy into the
// writer, land whole, none lost (run with -race: the lock is the test).
func TestWholeWrites(t *testing.T) {
	var buf bytes.Buffer
	w := New(&buf)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				w.Write([]byte("0123456789\n"))
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		io.Copy(w, strings.NewReader(strings.Repeat("0123456789\n", 100)))
	}()
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 900 {
		t.Fatalf("%d lines, want 900", len(lines))
	}
	for _, l := range lines {
		if l != "0123456789" {
			t.Fatalf("a torn line %q", l)
		}
	}
	if _, ok := io.Writer(w).(io.ReaderFrom); ok {
		t.Error("Writer has a ReadFrom: io.Copy would bypass the lock")
	}
	if Unwrap(w) != &buf || Unwrap(&buf) != &buf {
		t.Error("Unwrap")
	}
}
