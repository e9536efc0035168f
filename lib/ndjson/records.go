package ndjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// Stats counts what a Records pass skipped, so that nothing is lost
// silently.
type Stats struct {
	Lines      int   `json:"lines"`
	Records    int   `json:"records"`
	Blank      int   `json:"blank"`
	Malformed  []int `json:"malformed_lines"`
	TooLong    []int `json:"too_long_lines"`
	Incomplete bool  `json:"incomplete_last_line"`
}

// Skipped is the number of lines that were not handed on.
func (s *Stats) Skipped() int {
	n := len(s.Malformed) + len(s.TooLong)
	if s.Incomplete {
		n++
	}
	return n
}

// Problem describes one skipped line, for a warning.
type Problem struct {
	Line int
	Err  error
}

func (p Problem) Error() string { return fmt.Sprintf("%d: %v", p.Line, p.Err) }

// ErrIncomplete marks a final line without a newline that is not a whole
// JSON value: a transcript caught mid-write.
var ErrIncomplete = errors.New("incomplete last line (file still being written?)")

// Records reads JSON lines from r and calls fn with each one that is a
// valid JSON value. Blank lines are skipped; malformed and over-long lines
// are skipped, counted and passed to warn (which may be nil). A final line
// without a newline is used when it is valid JSON, else counted as
// incomplete. An error from fn stops the loop and is returned.
func Records(r io.Reader, warn func(Problem), fn func(line []byte, lineno int) error) (Stats, error) {
	return records(NewReader(r), true, warn, func(line []byte, lineno int, _ bool) error { return fn(line, lineno) })
}

// ErrMalformed is returned by the fn of ReadRecords for a line that is
// not JSON: the line is then counted and reported as Records counts the
// lines it checks (incomplete when it is a final line without a newline).
var ErrMalformed = errors.New("malformed JSON, line skipped")

// ReadRecords is Records over a Reader the caller made (for its buffer
// size), that leaves the JSON check to fn: a caller that decodes the
// lines it wants checks them as it decodes, and need scan only the others
// a second time (jsonscan.Valid). fn returns ErrMalformed for a line that
// is not JSON, and is told whether the line is its to keep
// (Reader.Owned): a huge line can then be decoded without a copy.
func ReadRecords(rd *Reader, warn func(Problem), fn func(line []byte, lineno int, owned bool) error) (Stats, error) {
	return records(rd, false, warn, fn)
}

func records(rd *Reader, check bool, warn func(Problem), fn func(line []byte, lineno int, owned bool) error) (Stats, error) {
	var st Stats
	malformed := func() {
		if rd.Partial() {
			st.Incomplete = true
			if warn != nil {
				warn(Problem{rd.Line(), ErrIncomplete})
			}
			return
		}
		st.Malformed = append(st.Malformed, rd.Line())
		if warn != nil {
			warn(Problem{rd.Line(), ErrMalformed})
		}
	}
	for {
		line, err := rd.Next()
		if err == io.EOF {
			return st, nil
		}
		if err != nil {
			if errors.Is(err, ErrLineTooLong) {
				st.Lines++
				st.TooLong = append(st.TooLong, rd.Line())
				if warn != nil {
					warn(Problem{rd.Line(), err})
				}
				continue
			}
			return st, err
		}
		st.Lines++
		if len(bytes.TrimSpace(line)) == 0 {
			st.Blank++
			continue
		}
		// jsonscan.Valid accepts what json.Valid does (fuzzed), several
		// times faster.
		if check && !jsonscan.Valid(line) {
			malformed()
			continue
		}
		st.Records++
		if err := fn(line, rd.Line(), rd.Owned()); err != nil {
			if err == ErrMalformed && !check {
				st.Records--
				malformed()
				continue
			}
			return st, err
		}
	}
}
