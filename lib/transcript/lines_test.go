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

	"github.com/ccpipe/ccpipe/lib/ndjson"
)

// An event is what one call to a line reader gave, as text: the line
// number, whether the line was skipped as too long, whether it lacked its
// newline, and the line.
func event(number int, tooLong, partial bool, line []byte) string {
	return fmt.Sprintf("%d %t %t %q", number, tooLong, partial, line)
}

// referenceEvents splits data into lines by definition: at each "\n",
// one "\r" before it dropped, a last line without a newline partial, a
// line over maxLine (without its end) skipped as too long.
func referenceEvents(data []byte, maxLine int) []string {
	var ev []string
	for n := 1; len(data) > 0; n++ {
		line, rest, found := bytes.Cut(data, []byte("\n"))
		data = rest
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > maxLine {
			ev = append(ev, event(n, true, false, nil))
		} else {
			ev = append(ev, event(n, false, !found, line))
		}
	}
	return ev
}

// readerEvents reads r to its end; first is the number of the first line
// recorded (the lines before it are read and dropped).
func readerEvents(t *testing.T, r *ndjson.Reader, maxLine, first int) []string {
	t.Helper()
	r.MaxLine = maxLine
	var ev []string
	for {
		l, err := r.Next()
		switch {
		case err == io.EOF:
			return ev
		case err != nil && !errors.Is(err, ndjson.ErrLineTooLong):
			t.Fatal(err)
		case r.Line() >= first:
			ev = append(ev, event(r.Line()-first+1, err != nil, r.Partial(), l))
		}
	}
}

func sameEvents(t *testing.T, what string, got, want []string) {
	t.Helper()
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Fatalf("%s: got\n%s\nreference\n%s", what, g, w)
	}
}

// FuzzLineReader checks the transcript's line splitting against the
// reference: through one-page windows of a mapped file (after a filler
// line that puts the data across a window boundary), and as a stream
// through tiny and full read buffers: the same lines, numbers, partial
// flags and too-long skips.
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{"", "{}\n", "a\r\nb", "\n\n", "{\"a\":\n1}", "x\ry\n", "abcdefgh\nij\r"} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < 1 || max > 64 {
			max = 64
		}
		want := referenceEvents(data, max)
		for _, size := range []int{1, 7, readBuf} {
			sameEvents(t, fmt.Sprintf("buffer %d", size), readerEvents(t, ndjson.NewReaderSize(bytes.NewReader(data), size), max, 1), want)
		}
		smallWindows(t)
		filler := strings.Repeat("p", os.Getpagesize()-1-len(data)%13) + "\n"
		path := filepath.Join(t.TempDir(), "t.jsonl")
		if err := os.WriteFile(path, append([]byte(filler), data...), 0o644); err != nil {
			t.Fatal(err)
		}
		sameEvents(t, "mapped", mappedEvents(t, path, max, 2), want)
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

func mappedEvents(t *testing.T, path string, maxLine, first int) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := mapFile(f)
	if w == nil {
		t.Fatal("not mapped")
	}
	defer w.w.Close()
	r := ndjson.NewReaderSize(f, readBuf)
	r.UseWindowSource(w)
	return readerEvents(t, r, maxLine, first)
}

// TestMappedAgreesWithReference reads files through one-page windows:
// lines inside a window, across two, over several, too long, and a
// partial last line come out as the reference splits them.
func TestMappedAgreesWithReference(t *testing.T) {
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
		for _, max := range []int{ndjson.DefaultMaxLine, 2 * page} {
			want := referenceEvents([]byte(data), max)
			sameEvents(t, fmt.Sprintf("%s max %d", name, max), mappedEvents(t, path, max, 1), want)
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

// TestInPlaceAgreesWithReadBack reads a file whose long lines cross
// one-page windows, with the filter and the types skipping some: looked
// at in place (inPlaceMin) or read back at their size (0, the slow twin),
// the lines handed on, their owned flags and the diagnostics are the
// same, and the long lines were looked at in place.
func TestInPlaceAgreesWithReadBack(t *testing.T) {
	smallWindows(t)
	page := os.Getpagesize()
	var b strings.Builder
	for i := range 40 {
		typ := []string{"user", "assistant", "system"}[i%3]
		pad := strings.Repeat("x", (i%7)*page+i)
		mark := []string{"keep", "skip"}[i%2]
		fmt.Fprintf(&b, `{"type":"%s","n":%d,"mark":"%s","pad":"%s"}`, typ, i, mark, pad)
		if i%5 == 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
	}
	b.WriteString(`{"type":"user","mark":"keep","pad":"` + strings.Repeat("y", 3*page) + `"`) // cut mid-write
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(min int) (lines []string, d Diagnostics, inPlace int) {
		saved := inPlaceMin
		inPlaceMin = min
		defer func() { inPlaceMin = saved }()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var rd *Reader
		opts := Options{Types: []string{"user", "assistant"}, Filter: func(line []byte) bool {
			if rd.lr.InPlace() {
				inPlace++
			}
			return !bytes.Contains(line, []byte(`"skip"`))
		}}
		rd = NewReader(f, opts)
		err = rd.eachMapped(f, func(l *Line) error {
			lines = append(lines, fmt.Sprintf("%d %t %q", l.Number, l.Owned, l.Bytes))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return lines, rd.Diagnostics(), inPlace
	}
	want, wd, _ := read(0)
	got, gd, inPlace := read(page)
	sameEvents(t, "in place", got, want)
	if fmt.Sprint(gd) != fmt.Sprint(wd) {
		t.Fatalf("diagnostics in place %+v, read back %+v", gd, wd)
	}
	if inPlace < 10 || len(want) < 10 {
		t.Fatalf("%d lines looked at in place, %d handed on", inPlace, len(want))
	}
}
