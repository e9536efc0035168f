package ndjson

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func pipeSizeOf(t *testing.T, f *os.File) int {
	t.Helper()
	n, err := unix.FcntlInt(f.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A Writer into a pipe raises the pipe and writes in 1 MiB pieces; a
// Reader of a pipe reads into 1 MiB; neither touches anything else.
func TestPipesGrown(t *testing.T) {
	want := min(pipeSize, pipeMax())
	if want <= 0 {
		t.Skip("no /proc/sys/fs/pipe-max-size")
	}
	for _, end := range []string{"writer", "reader"} {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		before := pipeSizeOf(t, pr)
		if end == "writer" {
			if w := NewWriter(pw); w.bw.Size() != fileBufSize {
				t.Errorf("writer into a pipe: buffer %d, want %d", w.bw.Size(), fileBufSize)
			}
		} else if r := NewReader(pr); len(r.buf) != fileBufSize {
			t.Errorf("reader of a pipe: buffer %d, want %d", len(r.buf), fileBufSize)
		}
		if got := pipeSizeOf(t, pr); got < want {
			t.Errorf("%s: pipe of %d bytes (was %d), want %d", end, got, before, want)
		}
		pr.Close()
		pw.Close()
	}
	if w := NewWriter(os.NewFile(^uintptr(0), "bad")); w.bw.Size() != 64<<10 {
		t.Errorf("writer into a bad file: buffer %d", w.bw.Size())
	}
}
