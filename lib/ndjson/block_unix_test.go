//go:build unix

package ndjson

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"
	"testing/iotest"
)

// A line many times the buffer, from a stream that cannot be read back
// and gives short reads (a pipe): it comes out whole and owned, and the
// Go heap held it once: its pieces lived outside the heap and were all
// given back (before, pieces and line were both on the heap: twice the
// line).
func TestLongLineFromStreamHeldOnce(t *testing.T) {
	const n = 24 << 20
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := NewReaderSize(iotest.HalfReader(&bigLine{n: n}), 64<<10)
	line, err := r.Next()
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(line) != n+2 || !bytes.HasPrefix(line, []byte(`{"type":"user","text":"xx`)) || !bytes.HasSuffix(line, []byte(`xx"}`)) || !r.Owned() {
		t.Fatalf("line of %d bytes (%.30q...), owned %v", len(line), line, r.Owned())
	}
	// The line, the read buffer and the first MiB assembled by append
	// (29 MiB in all when written; with the pieces on the heap, 57).
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > n*3/2 {
		t.Errorf("allocated %d MiB on the heap for a %d MiB line", alloc>>20, n>>20)
	}
	if live := blocksLive.Load(); live != 0 {
		t.Errorf("%d blocks still mapped after the line", live)
	}
	if l, err := r.Next(); err != nil || string(l) != `{"after":true}` {
		t.Fatalf("next line %q %v", l, err)
	}
}

// A long line given up (too long, or cut by a read error) frees its
// blocks too.
func TestLongLineBlocksFreed(t *testing.T) {
	const n = 12 << 20
	r := NewReaderSize(&bigLine{n: n}, 64<<10)
	r.MaxLine = 9 << 20
	if _, err := r.Next(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("got %v, want ErrLineTooLong", err)
	}
	boom := errors.New("boom")
	r = NewReaderSize(io.MultiReader(io.LimitReader(&bigLine{n: n}, n/2), iotest.ErrReader(boom)), 64<<10)
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the read error", err)
	}
	if live := blocksLive.Load(); live != 0 {
		t.Errorf("%d blocks still mapped", live)
	}
}
