package transcript

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/ccpipe/ccpipe/lib/ndjson"
)

// lineReader splits a stream into lines as ndjson.Reader does (no line
// cap, a final line without a newline reported as partial, a line over
// maxLine skipped and reported), with what the transcript hot path needs
// besides: a plain file can be read through memory maps (mapFile), so
// that its bytes are not first copied out of the page cache, and a line
// that fits the buffer or window is handed on in place.
type lineReader struct {
	r     io.Reader
	buf   []byte
	start int // the unread bytes are buf[start:end]
	end   int
	eof   bool
	err   error // a read error, returned once the buffered lines are out

	line    int
	partial bool
	maxLine int

	// A line longer than buf is assembled in blocks joined once at the
	// end (as ndjson does), so a huge line costs about twice its size at
	// the peak instead of the sum of every doubling.
	long   []byte
	blocks [][]byte

	// mm, when set, maps the file instead of reading it: buf is then the
	// current window, and a line across two windows is assembled as a
	// long line is.
	mm *mapping
	f  *os.File
}

const (
	readBuf   = 256 << 10
	blockSize = 4 << 20
	// smallLine is the largest assembled line whose buffer is kept for
	// the next long line.
	smallLine = 1 << 20
)

// mapWindow is how much of a file is mapped at a time (a multiple of the
// page size): large enough that the map calls cost nothing, small enough
// that the resident memory stays a few MB whatever the file's size. Files
// under minMapped are read as streams. Tests shrink both.
var (
	mapWindow int64 = 4 << 20
	minMapped int64 = 1 << 20
)

func newLineReader(r io.Reader, maxLine int) *lineReader {
	if maxLine <= 0 {
		maxLine = ndjson.DefaultMaxLine
	}
	return &lineReader{r: r, buf: make([]byte, readBuf), maxLine: maxLine}
}

// next returns the next line without its "\n" or "\r\n", valid until the
// following call, or io.EOF at the end. A line over maxLine is consumed
// and reported with an error wrapping ndjson.ErrLineTooLong.
func (r *lineReader) next() ([]byte, error) {
	if cap(r.long) > smallLine {
		r.long = nil // do not keep a huge line's memory for the next one
	}
	r.partial = false
	scanned := r.start // buf[start:scanned] holds no newline
	for {
		if i := bytes.IndexByte(r.buf[scanned:r.end], '\n'); i >= 0 {
			line := r.buf[r.start : scanned+i]
			r.start = scanned + i + 1
			r.line++
			return r.finish(trimCR(line))
		}
		scanned = r.end
		if r.eof || r.err != nil {
			return r.last()
		}
		if r.mm != nil {
			if r.start < r.end {
				return r.longLine() // the line goes on in the next window
			}
			r.start, r.end, scanned = 0, 0, 0
			r.fill()
			continue
		}
		if r.start > 0 {
			// Move the started line to the front to make room.
			n := copy(r.buf, r.buf[r.start:r.end])
			scanned -= r.start
			r.start, r.end = 0, n
		}
		if r.end == len(r.buf) {
			return r.longLine()
		}
		r.fill()
	}
}

// mapFile reads f through memory maps when it is a regular file big
// enough to gain from them; close must be called at the end.
func (r *lineReader) mapFile(f *os.File) {
	if r.start == r.end && r.line == 0 {
		if r.mm = newMapping(f); r.mm != nil {
			r.f = f
			r.buf, r.start, r.end = nil, 0, 0
		}
	}
}

// close releases the current window of a mapped file.
func (r *lineReader) close() {
	if r.mm != nil {
		r.mm.unmap()
	}
}

// fill reads once into the free end of buf, or maps the next window of a
// mapped file (buf is then empty: start == end == 0).
func (r *lineReader) fill() {
	if r.mm != nil {
		if win := r.mm.next(); win != nil {
			r.buf, r.end = win, len(win)
			return
		}
		// Past the size seen at open: the file grew, or a map failed.
		// Read the rest as a stream from there.
		off := r.mm.size
		r.mm = nil
		r.buf = make([]byte, readBuf)
		if _, err := r.f.Seek(off, io.SeekStart); err != nil {
			r.err = err
			return
		}
	}
	for tries := 0; tries < 100; tries++ {
		n, err := r.r.Read(r.buf[r.end:])
		r.end += n
		if err == io.EOF {
			r.eof = true
			return
		}
		if err != nil {
			r.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.err = io.ErrNoProgress // as bufio: a reader that keeps returning nothing
}

// last hands on what is left at the end of the input: a final line
// without a newline (partial), or io.EOF, or the read error.
func (r *lineReader) last() ([]byte, error) {
	if r.start == r.end {
		if r.err != nil {
			err := r.err
			r.err = nil
			r.eof = true // the error is reported once, then the read ends
			return nil, err
		}
		return nil, io.EOF
	}
	if r.err != nil {
		// ndjson.Reader drops a line cut by a read error with the error.
		r.start = r.end
		return r.last()
	}
	line := r.buf[r.start:r.end]
	r.start = r.end
	r.line++
	r.partial = true
	return r.finish(trimCR(line))
}

func (r *lineReader) finish(line []byte) ([]byte, error) {
	if len(line) > r.maxLine {
		return nil, r.tooLong()
	}
	return line, nil
}

func (r *lineReader) tooLong() error {
	r.partial = false
	return fmt.Errorf("line %d: %w (over %d bytes)", r.line, ndjson.ErrLineTooLong, r.maxLine)
}

// longLine reads a line that does not fit buf (which it fills, from the
// line's start): the rest is read through buf, piece by piece, and kept
// until its newline unless it grows over maxLine.
func (r *lineReader) longLine() ([]byte, error) {
	r.long = r.long[:0]
	r.blocks = r.blocks[:0]
	size := 0
	tooLong := false
	for {
		piece := r.buf[r.start:r.end]
		i := bytes.IndexByte(piece, '\n')
		if i >= 0 {
			piece = piece[:i+1]
		}
		size += len(piece)
		if !tooLong && size > r.maxLine+2 {
			tooLong = true
			r.long, r.blocks = r.long[:0], r.blocks[:0]
		}
		if !tooLong {
			r.keep(piece)
		}
		r.start += len(piece)
		if i >= 0 || r.eof || r.err != nil {
			if i < 0 && r.err != nil {
				return r.last()
			}
			r.line++
			if tooLong {
				return nil, r.tooLong()
			}
			r.partial = i < 0
			line := r.joined()
			if i >= 0 {
				line = line[:len(line)-1]
			}
			return r.finish(trimCR(line))
		}
		r.start, r.end = 0, 0
		r.fill()
	}
}

// keep stores a piece of the current long line.
func (r *lineReader) keep(piece []byte) {
	if len(r.blocks) == 0 && len(r.long)+len(piece) <= smallLine {
		r.long = append(r.long, piece...)
		return
	}
	if len(r.blocks) == 0 {
		r.blocks = append(r.blocks, make([]byte, 0, blockSize))
		r.blocks[0] = append(r.blocks[0], r.long...)
		r.long = r.long[:0]
	}
	for len(piece) > 0 {
		last := &r.blocks[len(r.blocks)-1]
		if len(*last) == cap(*last) {
			r.blocks = append(r.blocks, make([]byte, 0, blockSize))
			last = &r.blocks[len(r.blocks)-1]
		}
		n := min(cap(*last)-len(*last), len(piece))
		*last = append(*last, piece[:n]...)
		piece = piece[n:]
	}
}

// joined returns the kept pieces as one slice.
func (r *lineReader) joined() []byte {
	if len(r.blocks) == 0 {
		return r.long
	}
	total := 0
	for _, b := range r.blocks {
		total += len(b)
	}
	r.long = make([]byte, 0, total)
	for i, b := range r.blocks {
		r.long = append(r.long, b...)
		r.blocks[i] = nil
	}
	r.blocks = r.blocks[:0]
	return r.long
}

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}
