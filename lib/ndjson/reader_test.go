package ndjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

func readAll(t *testing.T, r *Reader) (lines []string, partial bool) {
	t.Helper()
	for {
		l, err := r.Next()
		if err == io.EOF {
			return lines, partial
		}
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(l))
		partial = r.Partial()
	}
}

func TestReaderLines(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		partial bool
	}{
		{"empty", "", nil, false},
		{"one", "{}\n", []string{"{}"}, false},
		{"crlf", "{\"a\":1}\r\n{}\r\n", []string{`{"a":1}`, "{}"}, false},
		{"no final newline", "{}\n{\"a\"", []string{"{}", `{"a"`}, true},
		{"blank lines kept", "\n\n{}\n", []string{"", "", "{}"}, false},
		{"nul and invalid utf8", "{\"a\":\"\x00\xff\"}\n", []string{"{\"a\":\"\x00\xff\"}"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte at a time as well, to cross every buffer boundary.
			for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
				got, partial := readAll(t, NewReader(r))
				if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
					t.Errorf("lines: got %q, want %q", got, tt.want)
				}
				if partial != tt.partial {
					t.Errorf("partial: got %v, want %v", partial, tt.partial)
				}
			}
		})
	}
}

func TestReaderLongLineOverBuffer(t *testing.T) {
	long := strings.Repeat("x", 200_000)
	in := "{}\n\"" + long + "\"\n{}\n"
	got, _ := readAll(t, NewReader(strings.NewReader(in)))
	if len(got) != 3 || got[1] != "\""+long+"\"" {
		t.Fatalf("long line not read whole: %d lines", len(got))
	}
}

func TestReaderMaxLine(t *testing.T) {
	r := NewReader(strings.NewReader("{}\n" + strings.Repeat("y", 1000) + "\n{\"b\":2}\n" + strings.Repeat("z", 900)))
	r.MaxLine = 100
	var lines []string
	var tooLong []int
	for {
		l, err := r.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, ErrLineTooLong) {
			tooLong = append(tooLong, r.Line())
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(l))
	}
	if strings.Join(lines, "|") != `{}|{"b":2}` {
		t.Errorf("lines: %q", lines)
	}
	if len(tooLong) != 2 || tooLong[0] != 2 || tooLong[1] != 4 {
		t.Errorf("too long at %v, want [2 4]", tooLong)
	}
}

func TestRecordsCountsWhatItSkips(t *testing.T) {
	in := "{\"a\":1}\n\nnot json\n{\"b\":\n[1,2]\n{\"c\":3}\n{\"partial\":"
	var got []string
	var problems []string
	st, err := Records(strings.NewReader(in), func(p Problem) { problems = append(problems, p.Error()) },
		func(line []byte, n int) error {
			got = append(got, string(line))
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != `{"a":1} [1,2] {"c":3}` {
		t.Errorf("records: %q", got)
	}
	if st.Lines != 7 || st.Records != 3 || st.Blank != 1 || !st.Incomplete {
		t.Errorf("stats: %+v", st)
	}
	if len(st.Malformed) != 2 || st.Malformed[0] != 3 || st.Malformed[1] != 4 {
		t.Errorf("malformed: %v", st.Malformed)
	}
	if st.Skipped() != 3 || len(problems) != 3 || !strings.HasPrefix(problems[2], "7: incomplete") {
		t.Errorf("problems: %q skipped %d", problems, st.Skipped())
	}
}

func TestRecordsAcceptsValidFinalLineWithoutNewline(t *testing.T) {
	var n int
	st, err := Records(strings.NewReader("{}\n{\"x\":1}"), nil, func([]byte, int) error { n++; return nil })
	if err != nil || n != 2 || st.Incomplete {
		t.Fatalf("n=%d st=%+v err=%v", n, st, err)
	}
}

func TestRecordsStopsOnCallbackError(t *testing.T) {
	stop := errors.New("stop")
	_, err := Records(strings.NewReader("{}\n{}\n"), nil, func([]byte, int) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("got %v", err)
	}
}

// bigLine is a reader of one JSON line of n bytes and a short line after
// it, made on the fly so the test needs no file.
type bigLine struct{ n, off int }

func (b *bigLine) Read(p []byte) (int, error) {
	const head = `{"type":"user","text":"`
	const tail = "\"}\n{\"after\":true}\n"
	total := b.n + len(tail)
	if b.off >= total {
		return 0, io.EOF
	}
	i := 0
	for i < len(p) && b.off < total {
		switch {
		case b.off < len(head):
			p[i] = head[b.off]
		case b.off < b.n:
			p[i] = 'x'
		default:
			p[i] = tail[b.off-b.n]
		}
		i++
		b.off++
	}
	return i, nil
}

// TestHugeLine reads a 300 MB line: no cap, the line intact, and the heap
// bounded by a small multiple of the line (never by the input's size).
func TestHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("300 MB line skipped under -short")
	}
	const n = 300 << 20
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var sizes []int
	var last []byte
	_, err := Records(&bigLine{n: n}, nil, func(line []byte, _ int) error {
		sizes = append(sizes, len(line))
		last = append(last[:0], line[len(line)-4:]...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if len(sizes) != 2 || sizes[0] != n+2 || !bytes.Equal(last, []byte("rue}")) {
		t.Fatalf("sizes %v last %q", sizes, last)
	}
	if grown := after.HeapSys - before.HeapSys; grown > 3*n {
		t.Errorf("heap grew by %d MB for a %d MB line", grown>>20, n>>20)
	}
}

func FuzzReader(f *testing.F) {
	for _, s := range []string{"", "{}\n", "a\r\nb", "\n\n", "{\"a\":\n1}", "x\ry\n"} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < 1 || max > 64 {
			max = 64
		}
		// The same lines through a tiny buffer, and through windows with
		// the rest read after them.
		want := events(t, NewReader(bytes.NewReader(data)), max)
		sameEvents(t, "buffer 3", events(t, NewReaderSize(bytes.NewReader(data), 3), max), want)
		cut := len(data) / 2
		wr := NewReader(bytes.NewReader(data[cut:]))
		wr.UseWindowSource(&sliceWindows{data: data[:cut], size: 1 + max%7})
		sameEvents(t, "windows", events(t, wr, max), want)
		ra := NewReaderSize(bytes.NewReader(data), 3)
		ra.UseReaderAt(bytes.NewReader(data))
		sameEvents(t, "read back", events(t, ra, max), want)
		wa := NewReaderSize(bytes.NewReader(data[cut:]), 3)
		wa.UseWindowSource(&sliceWindows{data: data[:cut], size: 1 + max%7})
		wa.UseReaderAt(bytes.NewReader(data))
		sameEvents(t, "windows, read back", events(t, wa, max), want)

		r := NewReader(bytes.NewReader(data))
		r.MaxLine = max
		var joined []byte
		lines := 0
		for {
			l, err := r.Next()
			if err == io.EOF {
				break
			}
			lines++
			if errors.Is(err, ErrLineTooLong) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if bytes.IndexByte(l, '\n') >= 0 || len(l) > max {
				t.Fatalf("line %q has a newline or is over %d", l, max)
			}
			joined = append(joined, l...)
		}
		if lines != r.Line() {
			t.Fatalf("counted %d lines, reader says %d", lines, r.Line())
		}
		// Every non-newline byte that is not part of a \r\n or a too-long
		// line comes out: with no cap in play the bytes must match.
		if max == 64 && len(data) < 64 {
			want := bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
			want = bytes.ReplaceAll(want, []byte("\n"), nil)
			if !bytes.Equal(joined, want) && !bytes.HasSuffix(data, []byte("\r")) {
				t.Fatalf("got %q, want %q", joined, want)
			}
		}
	})
}

// BenchmarkHugeLine reports the peak heap for one 300 MB line.
func BenchmarkHugeLine(b *testing.B) {
	const n = 300 << 20
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := Records(&bigLine{n: n}, nil, func([]byte, int) error { return nil }); err != nil {
			b.Fatal(err)
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapSys-before.HeapSys)/float64(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(n)/float64(1<<20), "line-MB")
	}
	b.SetBytes(n)
}

// event is what one call to Next gave: a line or a too-long skip, with
// the line number and partial flag after it.
type event struct {
	line    string
	tooLong bool
	number  int
	partial bool
}

func events(t *testing.T, r *Reader, maxLine int) []event {
	t.Helper()
	if maxLine > 0 {
		r.MaxLine = maxLine
	}
	var ev []event
	for {
		l, err := r.Next()
		if err == io.EOF {
			return ev
		}
		if err != nil && !errors.Is(err, ErrLineTooLong) {
			t.Fatal(err)
		}
		ev = append(ev, event{string(l), err != nil, r.Line(), r.Partial()})
	}
}

func sameEvents(t *testing.T, what string, got, want []event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, want %d\n got %+v\nwant %+v", what, len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s, event %d: got %+v, want %+v", what, i, got[i], want[i])
		}
	}
}

// sliceWindows hands out data in windows of size bytes, then err (io.EOF
// when nil); a window's bytes are a fresh copy each time, overwritten at
// the next call, as an unmapped window is gone.
type sliceWindows struct {
	data []byte
	size int
	err  error
	win  []byte
}

func (w *sliceWindows) Next() ([]byte, error) {
	clear(w.win)
	if len(w.data) == 0 {
		if w.err != nil {
			return nil, w.err
		}
		return nil, io.EOF
	}
	n := min(w.size, len(w.data))
	w.win = append([]byte(nil), w.data[:n]...)
	w.data = w.data[n:]
	return w.win, nil
}

// TestReaderWindows reads inputs through windows of every small size,
// cut anywhere from the stream read after them (bytes appended to a file
// after it was mapped): the lines, numbers, partial flags and too-long
// skips are those of a plain read.
func TestReaderWindows(t *testing.T) {
	tests := []struct {
		in      string
		maxLine int
	}{
		{"", 0}, {"{}\n", 0}, {"{\"a\":1}\r\n{}\r\n", 0}, {"{}\n{\"a\"", 0}, {"\n\n{}\n", 0},
		{"a\r", 0}, {"\r\n\r", 0}, {"x\ry\n", 0},
		{"{}\n" + strings.Repeat("y", 1000) + "\n{\"b\":2}\n" + strings.Repeat("z", 900), 100},
		{strings.Repeat("q", 101) + "\r\n" + strings.Repeat("q", 100) + "\r\nend", 100},
		{strings.Repeat("w", 5000) + "\n" + strings.Repeat("v", 3000), 0},
	}
	for _, tt := range tests {
		data := []byte(tt.in)
		want := events(t, NewReader(bytes.NewReader(data)), tt.maxLine)
		for _, size := range []int{1, 2, 7, 64, 4096} {
			for _, cut := range []int{0, 1, len(data) / 3, len(data) - 1, len(data)} {
				cut = max(0, min(cut, len(data)))
				r := NewReaderSize(iotest.OneByteReader(bytes.NewReader(data[cut:])), size)
				r.UseWindowSource(&sliceWindows{data: data[:cut], size: size})
				sameEvents(t, fmt.Sprintf("%q windows of %d to %d", tt.in, size, cut), events(t, r, tt.maxLine), want)
				r = NewReaderSize(iotest.OneByteReader(bytes.NewReader(data[cut:])), size)
				r.UseWindowSource(&sliceWindows{data: data[:cut], size: size})
				r.UseReaderAt(bytes.NewReader(data))
				sameEvents(t, fmt.Sprintf("%q windows of %d to %d, read back", tt.in, size, cut), events(t, r, tt.maxLine), want)
			}
		}
	}
}

// A line longer than smallLine is the caller's to keep, read back or
// assembled; a short one is not (its buffer is reused).
func TestReaderOwned(t *testing.T) {
	data := []byte("{}\n" + strings.Repeat("x", smallLine+10) + "\n{}\n")
	for _, back := range []bool{false, true} {
		r := NewReader(bytes.NewReader(data))
		if back {
			r.UseReaderAt(bytes.NewReader(data))
		}
		var owned []bool
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			owned = append(owned, r.Owned())
		}
		if !slices.Equal(owned, []bool{false, true, false}) {
			t.Errorf("read back %v: owned %v, want [false true false]", back, owned)
		}
	}
}

// With SkipUnless, a long line holding none of the byte strings comes out
// as ErrSkipped (its number counted); every other line as without it, a
// needle cut across two reads included.
func TestReaderSkipUnless(t *testing.T) {
	for _, size := range []int{3, 4, 5, 7, 16} {
		for cut := 0; cut < 12; cut++ {
			long := strings.Repeat("x", cut) + `"wanted"` + strings.Repeat("y", 20)
			data := []byte("{}\n" + long + "\n" + strings.Repeat("z", 40) + "\n\"wanted\"\n" + strings.Repeat("q", 30))
			want := events(t, NewReader(bytes.NewReader(data)), 0)
			lines := strings.Split(string(data), "\n")
			r := NewReaderSize(bytes.NewReader(data), size)
			r.UseReaderAt(bytes.NewReader(data))
			r.SkipUnless = [][]byte{[]byte(`"nope"`), []byte(`"wanted"`)}
			var got []event
			for {
				l, err := r.Next()
				if err == io.EOF {
					break
				}
				if err == ErrSkipped {
					// The line's first bytes come with it, and whether it
					// had a newline.
					if !strings.HasPrefix(lines[r.Line()-1], string(l)) || len(l) < size || r.Partial() != (r.Line() == len(lines)) {
						t.Fatalf("buffer %d: skipped line %d: head %q, partial %v", size, r.Line(), l, r.Partial())
					}
					got = append(got, event{"", true, r.Line(), false})
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, event{string(l), false, r.Line(), r.Partial()})
			}
			// The z and q lines are longer than every buffer size here and
			// lack the needle; the others pass.
			want[2] = event{"", true, 3, false}
			want[4] = event{"", true, 5, false}
			sameEvents(t, fmt.Sprintf("buffer %d, needle at %d", size, cut), got, want)
		}
	}
}

// A line read back from an input that shrank since it was measured is an
// error, not a line of zeros.
func TestReaderReadBackShrank(t *testing.T) {
	data := []byte("{}\n" + strings.Repeat("x", 100) + "\n{}\n")
	r := NewReaderSize(bytes.NewReader(data), 8)
	r.UseReaderAt(bytes.NewReader(data[:50]))
	if l, err := r.Next(); err != nil || string(l) != "{}" {
		t.Fatalf("first line %q %v", l, err)
	}
	if _, err := r.Next(); !errors.Is(err, errShrank) {
		t.Fatalf("got %v, want errShrank", err)
	}
}

// A read error, of the stream or of a window that cannot be had, ends
// the read after the complete lines before it; the line it cut is dropped
// and the error is reported once.
func TestReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	stream := NewReader(io.MultiReader(strings.NewReader("{}\n{\"cut"), iotest.ErrReader(boom)))
	windows := NewReader(strings.NewReader("never read\n"))
	windows.UseWindowSource(&sliceWindows{data: []byte("{}\n{\"cut"), size: 4, err: boom})
	for name, r := range map[string]*Reader{"stream": stream, "windows": windows} {
		if l, err := r.Next(); err != nil || string(l) != "{}" {
			t.Fatalf("%s: first line %q %v", name, l, err)
		}
		if _, err := r.Next(); !errors.Is(err, boom) {
			t.Fatalf("%s: got %v, want the read error", name, err)
		}
		if l, err := r.Next(); err != io.EOF {
			t.Fatalf("%s: after the error: %q %v, want io.EOF", name, l, err)
		}
	}
}

// Readers made one after another over one buffer read into it, and read
// as a reader with a buffer of their own does.
func TestNewReaderBuffer(t *testing.T) {
	buf := make([]byte, 0, 8<<10)
	for _, in := range []string{"{}\n{\"a\":1}\n", strings.Repeat("x", 20<<10) + "\n{}", ""} {
		r := NewReaderBuffer(strings.NewReader(in), buf)
		got := events(t, r, 0)
		if want := events(t, NewReader(strings.NewReader(in)), 0); !slices.Equal(got, want) {
			t.Errorf("%.20q: got %v, want %v", in, got, want)
		}
		if len(in) > 0 && &r.buf[0] != &buf[:1][0] {
			t.Errorf("%.20q: the reader did not read into the given buffer", in)
		}
	}
}

// ReadRecords leaves the JSON check to fn: with fn checking as Records
// does (ErrMalformed for a line that is not JSON), it hands on, counts
// and reports the same; a valid line fn calls malformed is counted and
// reported as malformed.
func TestReadRecordsUncheckedSameAsRecords(t *testing.T) {
	in := "{\"a\":1}\n\nnot json\n{\"b\":\n[1,2]\n\"fn says no\"\n{\"c\":3}\n{\"partial\":"
	type result struct {
		got      []string
		problems []string
		st       Stats
	}
	var want, got result
	st, err := Records(strings.NewReader(in), func(p Problem) { want.problems = append(want.problems, p.Error()) },
		func(line []byte, n int) error {
			if string(line) == `"fn says no"` {
				want.problems = append(want.problems, fmt.Sprintf("%d: %v", n, ErrMalformed))
				return nil
			}
			want.got = append(want.got, string(line))
			return nil
		})
	want.st = st
	if err != nil {
		t.Fatal(err)
	}
	st, err = ReadRecords(NewReader(strings.NewReader(in)), func(p Problem) { got.problems = append(got.problems, p.Error()) },
		func(line []byte, n int, _ bool) error {
			if !json.Valid(line) || string(line) == `"fn says no"` {
				return ErrMalformed
			}
			got.got = append(got.got, string(line))
			return nil
		})
	got.st = st
	if err != nil {
		t.Fatal(err)
	}
	// Records counts the line fn refused as a record, ReadRecords as
	// malformed; the rest is the same.
	want.st.Records--
	want.st.Malformed = append(want.st.Malformed, 6)
	slices.Sort(want.st.Malformed)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ReadRecords:\n%+v\nRecords:\n%+v", got, want)
	}
}

// TestNewReaderSmallFile: a small regular file gets a small buffer, a big
// one the 1 MiB read buffer (cc-redact --scan reads thousands of small
// files; 1 MiB each doubled its time).
func TestNewReaderSmallFile(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		size int
		want int
	}{{10, defaultBufSize}, {200 << 10, 200<<10 + 1}, {3 << 20, fileBufSize}} {
		p := filepath.Join(dir, fmt.Sprint(c.size))
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), c.size), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(NewReader(f).buf); got != c.want {
			t.Errorf("%d-byte file: buffer %d, want %d", c.size, got, c.want)
		}
		f.Close()
	}
}
