// Package syncwriter is a writer safe for concurrent use: each Write
// whole, one at a time. It has no ReadFrom, so io.Copy into it (os/exec
// copying a child's output) goes through Write and its lock too, where a
// bytes.Buffer's ReadFrom would race the other writers.
package syncwriter

import (
	"io"
	"sync"
)

// Writer serialises the writes to the writer it wraps.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
}

// New wraps w.
func New(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p to the wrapped writer, alone.
func (s *Writer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// Unwrap is the writer w wraps, or w itself when it is no Writer.
func Unwrap(w io.Writer) io.Writer {
	if s, ok := w.(*Writer); ok {
		return s.w
	}
	return w
}
