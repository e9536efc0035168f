package cli

import (
	"fmt"
	"sync/atomic"

	"github.com/ccpipe/ccpipe/lib/ndjson"
)

// maxInputWarnings is how many skipped stdin lines are named one by one;
// the rest are counted in one line at the end (`cc-sessions | cc-entries |
// cc-sessions` would otherwise print a warning per record).
const maxInputWarnings = 10

// EachInput reads NDJSON records from stdin and calls fn for each valid
// one. Skipped lines are reported on stderr with their position (see
// SkipInput), so nothing is lost silently. It reads nothing when stdin is
// not input (a terminal, /dev/null).
func (e *Env) EachInput(fn func(line []byte, lineno int) error) (ndjson.Stats, error) {
	if !e.HasInput() {
		return ndjson.Stats{}, nil
	}
	defer e.flushSkips()
	return ndjson.Records(e.Stdin, e.skipProblem, fn)
}

// ReadInput is EachInput over a reader the command made (for its buffer
// size) that leaves the JSON check to fn (see ndjson.ReadRecords: fn
// returns ndjson.ErrMalformed for a line that is not JSON), with fn told
// whether the line is its to keep (Reader.Owned).
func (e *Env) ReadInput(rd *ndjson.Reader, fn func(line []byte, lineno int, owned bool) error) (ndjson.Stats, error) {
	defer e.flushSkips()
	return ndjson.ReadRecords(rd, e.skipProblem, fn)
}

func (e *Env) skipProblem(p ndjson.Problem) { e.SkipInput(p.Line, "%v", p.Err) }

// SkipInput reports stdin line lineno as skipped: `<stdin>:N: message` for
// the first ten, then only counted; EachInput prints the count at its end.
func (e *Env) SkipInput(lineno int, format string, a ...any) {
	if n := e.skipped.Add(1); n <= maxInputWarnings {
		e.Warnf("<stdin>:%d: %s", lineno, fmt.Sprintf(format, a...))
	}
}

// SkippedInput is how many stdin lines SkipInput was told about.
func (e *Env) SkippedInput() int { return int(e.skipped.Load()) }

func (e *Env) flushSkips() {
	if n := e.skipped.Load(); n > maxInputWarnings && !e.skipsFlushed.Swap(true) {
		e.Warnf("<stdin>: %d more warnings about stdin lines not shown (%d in all)", n-maxInputWarnings, n)
	}
}

// skipCounter is the state behind SkipInput.
type skipCounter struct {
	skipped      atomic.Int64
	skipsFlushed atomic.Bool
}
