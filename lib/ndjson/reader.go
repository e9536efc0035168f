package ndjson

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLine is the longest line a Reader accepts unless told
// otherwise: far above any real transcript line, low enough that a file
// without newlines cannot exhaust memory unnoticed.
const DefaultMaxLine = 1 << 30

// ErrLineTooLong is wrapped by the error Next returns for a line over the
// Reader's MaxLine; the reader skips the rest of that line and can go on.
var ErrLineTooLong = errors.New("line too long")

// Reader reads lines of a stream. Unlike bufio.Scanner it has no fixed
// token cap: a line is grown in a reused buffer as long as needed.
type Reader struct {
	br      *bufio.Reader
	buf     []byte
	line    int
	partial bool
	// MaxLine bounds one line; a longer one is skipped and reported.
	MaxLine int
}

// NewReader returns a Reader over r with a 64 KiB read buffer.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), MaxLine: DefaultMaxLine}
}

// Next returns the next line without its "\n" or "\r\n". The slice is
// valid until the following call. At the end it returns io.EOF. A final
// line that lacked its newline is returned normally and Partial reports
// true afterwards.
func (r *Reader) Next() ([]byte, error) {
	r.buf = r.buf[:0]
	r.partial = false
	tooLong := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		if !tooLong {
			if len(r.buf)+len(chunk) > r.MaxLine+2 {
				tooLong = true
				r.buf = r.buf[:0]
			} else if len(r.buf) == 0 && err == nil {
				// The common case: the whole line sits in the read buffer.
				r.line++
				return trimEOL(chunk), nil
			} else {
				r.buf = append(r.buf, chunk...)
			}
		}
		switch {
		case err == nil:
			r.line++
			if tooLong {
				return nil, fmt.Errorf("line %d: %w (over %d bytes)", r.line, ErrLineTooLong, r.MaxLine)
			}
			return trimEOL(r.buf), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if tooLong {
				r.line++
				return nil, fmt.Errorf("line %d: %w (over %d bytes)", r.line, ErrLineTooLong, r.MaxLine)
			}
			if len(r.buf) == 0 {
				return nil, io.EOF
			}
			r.line++
			r.partial = true
			return trimEOL(r.buf), nil
		default:
			return nil, err
		}
	}
}

// Line is the 1-based number of the line Next returned last.
func (r *Reader) Line() int { return r.line }

// Partial reports whether the line Next returned last had no newline: the
// end of a file that is still being written, or of a hand-made file.
func (r *Reader) Partial() bool { return r.partial }

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}
