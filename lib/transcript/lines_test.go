package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/ccpipe/ccpipe/lib/ndjson"
)

// event is what one call to a line reader gave: a line, a too-long skip,
// or the end, with the line number and partial flag after it.
type event struct {
	line    string
	tooLong bool
	number  int
	partial bool
}

func ndjsonEvents(t *testing.T, in io.Reader, maxLine int) []event {
	t.Helper()
	r := ndjson.NewReader(in)
	if maxLine > 0 {
		r.MaxLine = maxLine
	}
	var ev []event
	for {
		l, err := r.Next()
		if err == io.EOF {
			return ev
		}
		if err != nil && !errors.Is(err, ndjson.ErrLineTooLong) {
			t.Fatal(err)
		}
		ev = append(ev, event{string(l), err != nil, r.Line(), r.Partial()})
	}
}

func lineEvents(t *testing.T, in io.Reader, maxLine, bufSize int) []event {
	t.Helper()
	r := newLineReader(in, maxLine)
	r.buf = make([]byte, bufSize)
	var ev []event
	for {
		l, err := r.next()
		if err == io.EOF {
			return ev
		}
		if err != nil && !errors.Is(err, ndjson.ErrLineTooLong) {
			t.Fatal(err)
		}
		ev = append(ev, event{string(l), err != nil, r.line, r.partial})
	}
}

func sameEvents(t *testing.T, data []byte, maxLine int) {
	t.Helper()
	want := ndjsonEvents(t, bytes.NewReader(data), maxLine)
	// Tiny buffers put every line across refills and through the long
	// line path; one byte per read crosses every boundary.
	for _, size := range []int{1, 2, 7, 64, readBuf} {
		for _, in := range []io.Reader{bytes.NewReader(data), iotest.OneByteReader(bytes.NewReader(data)),
			iotest.DataErrReader(bytes.NewReader(data))} {
			got := lineEvents(t, in, maxLine, size)
			if len(got) != len(want) {
				t.Fatalf("buffer %d: %d events, ndjson %d\n got %+v\nwant %+v", size, len(got), len(want), got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("buffer %d, event %d: got %+v, ndjson %+v", size, i, got[i], want[i])
				}
			}
		}
	}
}

func TestLineReaderAgreesWithNDJSON(t *testing.T) {
	tests := []struct {
		in      string
		maxLine int
	}{
		{"", 0}, {"{}\n", 0}, {"{\"a\":1}\r\n{}\r\n", 0}, {"{}\n{\"a\"", 0}, {"\n\n{}\n", 0},
		{"a\r", 0}, {"\r\n\r", 0}, {"x\ry\n", 0}, {"{\"a\":\"\x00\xff\"}\n", 0},
		{"{}\n" + strings.Repeat("y", 1000) + "\n{\"b\":2}\n" + strings.Repeat("z", 900), 100},
		{strings.Repeat("q", 101) + "\r\n" + strings.Repeat("q", 100) + "\r\nend", 100},
		{strings.Repeat("w", 5000) + "\n" + strings.Repeat("v", 3000), 0},
	}
	for _, tt := range tests {
		sameEvents(t, []byte(tt.in), tt.maxLine)
	}
}

// A line far over the buffer goes through the block assembly intact.
func TestLineReaderLongLine(t *testing.T) {
	long := `{"x":"` + strings.Repeat("0123456789", (blockSize+smallLine)/5) + `"}`
	in := "{}\n" + long + "\n{\"after\":1}"
	got := lineEvents(t, strings.NewReader(in), 0, readBuf)
	want := []event{{"{}", false, 1, false}, {long, false, 2, false}, {`{"after":1}`, false, 3, true}}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("got %d events, first %+v last %+v", len(got), got[0], got[len(got)-1])
	}
}

// A read error ends the read after the complete lines before it, as with
// ndjson.Reader.
func TestLineReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	r := newLineReader(io.MultiReader(strings.NewReader("{}\n{\"cut"), iotest.ErrReader(boom)), 0)
	if l, err := r.next(); err != nil || string(l) != "{}" {
		t.Fatalf("first line %q %v", l, err)
	}
	if _, err := r.next(); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the read error", err)
	}
}

// FuzzLineReader checks the transcript line reader against ndjson.Reader:
// the same lines, numbers, partial flags and too-long skips.
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{"", "{}\n", "a\r\nb", "\n\n", "{\"a\":\n1}", "x\ry\n", "abcdefgh\nij\r"} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < 1 || max > 64 {
			max = 64
		}
		sameEvents(t, data, max)
	})
}

// smallWindows maps files a page at a time, so that lines cross windows
// and span several.
func smallWindows(t *testing.T) {
	t.Helper()
	w, m := mapWindow, minMapped
	mapWindow, minMapped = int64(os.Getpagesize()), 0
	t.Cleanup(func() { mapWindow, minMapped = w, m })
}

func mappedEvents(t *testing.T, path string, maxLine int) []event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := newLineReader(f, maxLine)
	r.mapFile(f)
	if r.mm == nil {
		t.Skip("memory maps not used on this platform")
	}
	defer r.close()
	var ev []event
	for {
		l, err := r.next()
		if err == io.EOF {
			return ev
		}
		if err != nil && !errors.Is(err, ndjson.ErrLineTooLong) {
			t.Fatal(err)
		}
		ev = append(ev, event{string(l), err != nil, r.line, r.partial})
	}
}

// TestMappedAgreesWithNDJSON reads files through one-page windows: lines
// inside a window, across two, over several, too long, and a partial last
// line come out as ndjson.Reader gives them.
func TestMappedAgreesWithNDJSON(t *testing.T) {
	smallWindows(t)
	page := os.Getpagesize()
	var b strings.Builder
	for i, n := range []int{10, page - 20, page, 3*page + 5, 1, 0, page / 2, 7 * page} {
		fmt.Fprintf(&b, "%d:%s", i, strings.Repeat("x", n))
		if i%2 == 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
	}
	b.WriteString("partial")
	dir := t.TempDir()
	for name, data := range map[string]string{"mixed": b.String(), "exact": strings.Repeat(strings.Repeat("y", page-1)+"\n", 3),
		"empty": "", "one": "{}\n"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, max := range []int{0, 2 * page} {
			want := ndjsonEvents(t, strings.NewReader(data), max)
			got := mappedEvents(t, path, max)
			if len(got) != len(want) {
				t.Fatalf("%s: %d events, ndjson %d", name, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s max %d, event %d: got %+v, ndjson %+v", name, max, i, got[i], want[i])
				}
			}
		}
	}
}

// A file that grows while it is read is read to its new end: the part
// past the size mapped at the open is read as a stream, and the line cut
// at that size is joined across.
func TestMappedFileGrows(t *testing.T) {
	smallWindows(t)
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(strings.Repeat(`{"type":"user"}`+"\n", 1000)+`{"type":"ass`), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	d, err := ReadFile(path, Options{}, func(l *Line) error {
		if l.Number == 1 {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			if _, err := f.WriteString(`istant"}` + "\n" + `{"type":"system"}` + "\n"); err != nil {
				return err
			}
		}
		got = append(got, string(l.Header.Type))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1002 || got[1000] != "assistant" || got[1001] != "system" || d.Lines != 1002 || d.IncompleteLastLine {
		t.Fatalf("%d records, last %q, diagnostics %+v", len(got), got[len(got)-2:], d)
	}
}

// A file cut shorter while it is mapped is a read error, not a crash.
func TestMappedFileShrinks(t *testing.T) {
	smallWindows(t)
	path := filepath.Join(t.TempDir(), "t.jsonl")
	line := `{"type":"user","pad":"` + strings.Repeat("p", 200) + `"}` + "\n"
	if err := os.WriteFile(path, []byte(strings.Repeat(line, 2000)), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	_, err := ReadFile(path, Options{}, func(l *Line) error {
		if n++; n == 1 {
			// Keep the first window (already mapped), drop the rest.
			return os.Truncate(path, int64(len(line)))
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "shrank") {
		t.Fatalf("after %d lines: got %v, want a read error", n, err)
	}
}
