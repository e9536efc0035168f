package ndjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// Writer writes one JSON value per line through a buffer. Call Flush at
// the end (and after each record when a reader waits on them, as in
// --follow).
type Writer struct {
	bw  *bufio.Writer
	buf bytes.Buffer
	enc *json.Encoder
	err error
}

// NewWriter returns a Writer over w.
func NewWriter(w io.Writer) *Writer {
	nw := &Writer{bw: bufio.NewWriterSize(w, 64<<10)}
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
	if _, err := w.bw.Write(b); err != nil {
		w.err = err
		return err
	}
	if err := w.bw.WriteByte('\n'); err != nil {
		w.err = err
	}
	return w.err
}

// Encode writes v as compact JSON with <, > and & left literal.
func (w *Writer) Encode(v any) error {
	if w.err != nil {
		return w.err
	}
	w.buf.Reset()
	if err := w.enc.Encode(v); err != nil {
		return err
	}
	if _, err := w.bw.Write(w.buf.Bytes()); err != nil {
		w.err = err
	}
	return w.err
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
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
