package ccgrep

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ccpipe/ccpipe/lib/search"
	"github.com/ccpipe/ccpipe/lib/searchindex"
)

// startProgress shows bytes, sessions and rate on stderr, overwriting one
// line, when stderr is a terminal and the search has run for a second.
// The returned func stops it and clears the line.
func startProgress(w io.Writer, tty bool, s *search.Searcher, ix *searchindex.Index) func() {
	if !tty {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		shown := false
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				if shown {
					fmt.Fprint(w, "\r\033[K")
				}
				return
			case <-tick.C:
				el := time.Since(start)
				if el < time.Second {
					continue
				}
				shown = true
				b := s.Bytes.Load()
				what := ""
				if ix != nil && ix.Indexed.Load() > 0 {
					what = fmt.Sprintf(" (%s indexed)", size(ix.Indexed.Load()))
				}
				fmt.Fprintf(w, "\r\033[Kcc-grep: %s%s, %d sessions, %s/s", size(b), what, s.Sessions.Load(), size(int64(float64(b)/el.Seconds())))
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// size formats a byte count with one decimal.
func size(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, suffix := float64(n), ""
	for _, s := range []string{"kB", "MB", "GB", "TB"} {
		f /= unit
		suffix = s
		if f < unit {
			break
		}
	}
	return fmt.Sprintf("%.1f %s", f, suffix)
}
