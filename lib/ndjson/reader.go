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

// Lines up to smallLine bytes are assembled in one reused buffer; longer
// ones in fixed blocks joined once at the end, so a huge line costs about
// twice its size at the peak instead of the sum of every doubling.
const (
	smallLine = 1 << 20
	blockSize = 4 << 20
)

// Reader reads lines of a stream. Unlike bufio.Scanner it has no fixed
// token cap.
type Reader struct {
	br      *bufio.Reader
	buf     []byte
	blocks  [][]byte
	line    int
	partial bool
	// MaxLine bounds one line (without its newline); a longer one is
	// skipped and reported.
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
	if cap(r.buf) > smallLine {
		r.buf = nil // do not keep a huge line's memory for the next one
	}
	r.buf = r.buf[:0]
	r.blocks = r.blocks[:0]
	r.partial = false
	size := 0
	tooLong := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		if err == nil && size == 0 {
			// The common case: the whole line sits in the read buffer.
			r.line++
			line := trimEOL(chunk)
			if len(line) > r.MaxLine {
				return nil, r.tooLong()
			}
			return line, nil
		}
		size += len(chunk)
		if !tooLong && size > r.MaxLine+2 {
			tooLong = true
			r.buf, r.blocks = r.buf[:0], r.blocks[:0]
		}
		if !tooLong {
			r.keep(chunk)
		}
		switch {
		case err == nil:
			r.line++
			if tooLong {
				return nil, r.tooLong()
			}
			return r.finish()
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if size == 0 {
				return nil, io.EOF
			}
			r.line++
			if tooLong {
				return nil, r.tooLong()
			}
			r.partial = true
			return r.finish()
		default:
			return nil, err
		}
	}
}

// keep stores a piece of the current line.
func (r *Reader) keep(chunk []byte) {
	if len(r.blocks) == 0 && len(r.buf)+len(chunk) <= smallLine {
		r.buf = append(r.buf, chunk...)
		return
	}
	if len(r.blocks) == 0 {
		r.blocks = append(r.blocks, make([]byte, 0, blockSize))
		r.blocks[0] = append(r.blocks[0], r.buf...)
		r.buf = r.buf[:0]
	}
	for len(chunk) > 0 {
		last := &r.blocks[len(r.blocks)-1]
		if len(*last) == cap(*last) {
			r.blocks = append(r.blocks, make([]byte, 0, blockSize))
			last = &r.blocks[len(r.blocks)-1]
		}
		n := min(cap(*last)-len(*last), len(chunk))
		*last = append(*last, chunk[:n]...)
		chunk = chunk[n:]
	}
}

func (r *Reader) finish() ([]byte, error) {
	if len(r.blocks) > 0 {
		total := 0
		for _, b := range r.blocks {
			total += len(b)
		}
		r.buf = make([]byte, 0, total)
		for i, b := range r.blocks {
			r.buf = append(r.buf, b...)
			r.blocks[i] = nil
		}
		r.blocks = r.blocks[:0]
	}
	line := trimEOL(r.buf)
	if len(line) > r.MaxLine {
		return nil, r.tooLong()
	}
	return line, nil
}

func (r *Reader) tooLong() error {
	r.partial = false
	return fmt.Errorf("line %d: %w (over %d bytes)", r.line, ErrLineTooLong, r.MaxLine)
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
