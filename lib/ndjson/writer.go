package ndjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
)

// Writer writes one JSON value per line through a buffer. Call Flush at
// the end (and after each record when a reader waits on them, as in
// --follow).
type Writer struct {
	bw  *bufio.Writer
	buf bytes.Buffer
	enc *json.Encoder
	err error
	// line holds an Appender's line.
	line []byte
}

// NewWriter returns a Writer over w. Into a pipe or a file it writes in
// 1 MiB pieces (and raises the pipe to match, see GrowPipe): each write
// to a pipe wakes its reader, and 64 KiB pieces cost a turn of both
// processes per 64 KiB. Anything else (a terminal, a socket, a buffer in
// a test) gets 64 KiB.
func NewWriter(w io.Writer) *Writer {
	size := 64 << 10
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && (fi.Mode().IsRegular() || fi.Mode()&os.ModeNamedPipe != 0) {
			GrowPipe(f)
			size = fileBufSize
		}
	}
	nw := &Writer{bw: bufio.NewWriterSize(w, size)}
	nw.enc = json.NewEncoder(&nw.buf)
	nw.enc.SetEscapeHTML(false)
	return nw
}

// WriteLine writes b, which must be one JSON value without a newline, and
// a newline.
func (w *Writer) WriteLine(b []byte) error {
	if w.err != nil {
		return w.err
	}
	w.room(len(b) + 1)
	if _, err := w.bw.Write(b); err != nil {
		w.err = err
		return err
	}
	if err := w.bw.WriteByte('\n'); err != nil {
		w.err = err
	}
	return w.err
}

// Encode writes v as compact JSON with <, > and & left literal (by its
// AppendJSON when it is an Appender).
func (w *Writer) Encode(v any) error {
	if w.err != nil {
		return w.err
	}
	if a, ok := v.(Appender); ok {
		if line, ok := a.AppendJSON(w.line[:0]); ok {
			w.line = line
			return w.WriteLine(line)
		}
	}
	w.buf.Reset()
	if err := w.enc.Encode(v); err != nil {
		return err
	}
	w.room(w.buf.Len())
	if _, err := w.bw.Write(w.buf.Bytes()); err != nil {
		w.err = err
	}
	return w.err
}

// room flushes the buffered lines when a line of n bytes does not fit
// after them, so that the buffer goes out at line boundaries: a command
// stopped by a signal leaves whole lines behind, never half of one.
func (w *Writer) room(n int) {
	if w.bw.Buffered() > 0 && n > w.bw.Available() {
		w.err = w.bw.Flush()
	}
}

// Flush writes out what is buffered.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	w.err = w.bw.Flush()
	return w.err
}

// Marshal encodes v as compact JSON without a newline, with <, > and &
// left literal.
func Marshal(v any) ([]byte, error) {
	if a, ok := v.(Appender); ok {
		if line, ok := a.AppendJSON(nil); ok {
			return line, nil
		}
	}
	return MarshalReflect(v)
}

// MarshalReflect is v as encoding/json writes it, HTML escaping off: the
// slow twin of every Appender, which Marshal falls back on.
func MarshalReflect(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
