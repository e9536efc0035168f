package cli

import (
	"io"
	"os"
	"sync"
)

// syncWriter serialises writes, so that warnings from worker goroutines
// (cc-grep's scanners, cc-extract's readers) stay whole lines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// IsTerminal reports whether w (Env.Stderr, say) is a terminal: progress
// output is for people, never for a pipe or a log.
func IsTerminal(w io.Writer) bool {
	if s, ok := w.(*syncWriter); ok {
		w = s.w
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
