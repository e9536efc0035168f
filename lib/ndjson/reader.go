package ndjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// DefaultMaxLine is the longest line a Reader accepts unless told
// otherwise: far above any real transcript line, low enough that a file
// without newlines cannot exhaust memory unnoticed.
const DefaultMaxLine = 1 << 30

// ErrSkipped is returned by Next for a line that does not fit the buffer
// (or a window) and holds none of SkipUnless (with UseReaderAt): it was
// measured, not kept.
// Next returns its first bytes (up to 64 KiB) with it, and Partial tells
// whether it lacked its newline.
var ErrSkipped = errors.New("line without the wanted bytes, skipped")

// ErrLineTooLong is wrapped by the error Next returns for a line over the
// Reader's MaxLine; the reader skips the rest of that line and can go on.
var ErrLineTooLong = errors.New("line too long")

// Lines up to smallLine bytes are assembled in one reused buffer; longer
// ones in fixed blocks outside the Go heap (see allocBlock), copied once
// into the line at the end and each handed back to the system as soon as
// it is copied: a huge line read from a pipe costs its size and one
// block at the peak, not twice its size (blocks and line) nor the sum of
// every doubling.
const (
	smallLine = 1 << 20
	blockSize = 4 << 20
)

// NewReader's read buffer: large for a file or a pipe (fewer reads, and a
// pipe drained in one read once GrowPipe raised it), small for anything
// else (a socket per connection, a string in a test).
const (
	defaultBufSize = 64 << 10
	fileBufSize    = 1 << 20
)

// skippedHead is how much of a line skipped unread (ErrSkipped) Next
// still returns: enough to tell an object from garbage and to look for
// its first keys.
const skippedHead = 64 << 10

// Reader reads lines of a stream. Unlike bufio.Scanner it has no fixed
// token cap. A line that fits the read buffer (or a window, see
// UseWindowSource) is handed on in place, without a copy.
type Reader struct {
	r     io.Reader
	buf   []byte
	start int // the unread bytes are buf[start:end]
	end   int
	eof   bool
	err   error // a read error, returned once the buffered lines are out

	line    int
	partial bool
	owned   bool

	// A line longer than buf is assembled in long, then in blocks.
	long   []byte
	blocks [][]byte
	// head holds the first bytes of a line skipped unread (ErrSkipped).
	head []byte

	// win, when set, hands out the input in place before r is read: buf
	// is then the current window, and a line across two windows is
	// assembled as a long line is.
	win     WindowSource
	bufSize int

	// ra, when set, reads the input back: a line longer than buf is then
	// only measured on the way through and read back once at its size.
	// off is the input offset of buf[0].
	ra  io.ReaderAt
	off int64

	// SkipUnless, when set with UseReaderAt, makes a line longer than the
	// buffer that holds none of these byte strings come out as ErrSkipped
	// instead of being read back: the search goes first, as on the usage
	// path, so a huge line of an unwanted type costs no memory.
	SkipUnless [][]byte

	// MaxLine bounds one line (without its newline); a longer one is
	// skipped and reported.
	MaxLine int

	// InPlaceMin, when set and the window source is a RangeSource, makes
	// a line of at least that many bytes that does not fit the buffer
	// come out in place (InPlace) instead of read back: a caller that
	// skips it after a look never copies it. A caller that keeps it calls
	// Own. The read back is the slow twin (InPlaceMin 0).
	InPlaceMin int
	ranges     RangeSource
	inPlace    bool
}

// WindowSource hands out the input's bytes in place, window after window (a
// memory-mapped file): a Reader given one copies only the lines that
// cross from one window into the next.
type WindowSource interface {
	// Next returns the next window, valid until the following call. At
	// the end of the windows it returns io.EOF, and the Reader goes on
	// reading its io.Reader: that must then stand where the windows end
	// (bytes appended to a file after it was mapped are read so). Any
	// other error is the Reader's read error.
	Next() ([]byte, error)
}

// RangeSource is a WindowSource that can also hand out any stretch of the
// input in place (a mapped file maps it).
type RangeSource interface {
	WindowSource
	// Range returns the n bytes at off, valid until Unrange; an error
	// when it cannot (the line is then read back).
	Range(off, n int64) ([]byte, error)
	// Drop tells that the range's first n bytes are no longer read.
	Drop(n int)
	Unrange()
}

// NewReader returns a Reader over r with a 1 MiB read buffer when r is an
// *os.File (stdin, a pipe, a file), whose pipe it raises to match (see
// GrowPipe), and a 64 KiB one otherwise. A regular file smaller than
// that gets a buffer of its size (64 KiB at least): commands that read
// thousands of small files would otherwise allocate 1 MiB for each.
func NewReader(r io.Reader) *Reader {
	if f, ok := r.(*os.File); ok {
		return NewReaderSize(r, fileReadSize(f))
	}
	return NewReaderSize(r, defaultBufSize)
}

// fileReadSize is NewReader's buffer size for f.
func fileReadSize(f *os.File) int {
	fi, err := f.Stat()
	if err == nil && fi.Mode().IsRegular() {
		return int(min(max(fi.Size()+1, defaultBufSize), fileBufSize))
	}
	GrowPipe(f)
	return fileBufSize
}

// NewReaderBuffer returns a Reader over r that reads into buf (all of its
// capacity; 64 KiB of its own when that is 0), so that readers of one
// file after another share one buffer. The caller must not use buf until
// done with the Reader.
func NewReaderBuffer(r io.Reader, buf []byte) *Reader {
	if cap(buf) == 0 {
		return NewReaderSize(r, defaultBufSize)
	}
	buf = buf[:cap(buf)]
	return &Reader{r: r, buf: buf, bufSize: len(buf), MaxLine: DefaultMaxLine}
}

// NewReaderSize returns a Reader over r with a read buffer of size bytes
// (64 KiB when size <= 0): a bigger one costs fewer reads per line.
func NewReaderSize(r io.Reader, size int) *Reader {
	if size <= 0 {
		size = defaultBufSize
	}
	return &Reader{r: r, buf: make([]byte, size), bufSize: size, MaxLine: DefaultMaxLine}
}

// UseWindowSource makes r take the input from w's windows, in place, and read
// its io.Reader only after them. It must be called before the first Next.
func (r *Reader) UseWindowSource(w WindowSource) {
	if r.line == 0 && r.start == r.end {
		r.win = w
		r.ranges, _ = w.(RangeSource)
		r.buf, r.start, r.end = nil, 0, 0
	}
}

// UseReaderAt makes r read a line that does not fit its buffer back from
// ra, which must hold the input's bytes at their offsets (a plain file read
// from its start): the line is allocated once at its size, instead of
// being kept in pieces and joined (twice its size at the peak). It must be
// called before the first Next.
func (r *Reader) UseReaderAt(ra io.ReaderAt) {
	if r.line == 0 && r.start == r.end {
		r.ra = ra
	}
}

// Next returns the next line without its "\n" or "\r\n". The slice is
// valid until the following call. At the end it returns io.EOF. A final
// line that lacked its newline is returned normally and Partial reports
// true afterwards. A read error is returned once, after the complete
// lines before it; the line it cut is dropped.
func (r *Reader) Next() ([]byte, error) {
	if r.inPlace {
		r.inPlace = false
		r.ranges.Unrange()
	}
	if cap(r.long) > smallLine {
		r.long = nil // do not keep a huge line's memory for the next one
	}
	r.partial, r.owned = false, false
	scanned := r.start // buf[start:scanned] holds no newline
	for {
		if i := bytes.IndexByte(r.buf[scanned:r.end], '\n'); i >= 0 {
			// The common case: the whole line sits in the buffer.
			line := r.buf[r.start : scanned+i]
			r.start = scanned + i + 1
			r.line++
			return r.finish(trimCR(line))
		}
		scanned = r.end
		if r.eof || r.err != nil {
			return r.last()
		}
		if r.win != nil {
			if r.start < r.end {
				return r.longLine() // the line goes on in the next window
			}
			r.off += int64(r.end)
			r.start, r.end, scanned = 0, 0, 0
			r.fill()
			continue
		}
		if r.start > 0 {
			// Move the started line to the front to make room.
			n := copy(r.buf, r.buf[r.start:r.end])
			scanned -= r.start
			r.off += int64(r.start)
			r.start, r.end = 0, n
		}
		if r.end == len(r.buf) {
			return r.longLine()
		}
		r.fill()
	}
}

// fill reads once into the free end of buf, or takes the next window
// (buf is then empty: start == end == 0).
func (r *Reader) fill() {
	if r.win != nil {
		win, err := r.win.Next()
		if err == nil {
			r.buf, r.end = win, len(win)
			return
		}
		r.win = nil
		r.buf = make([]byte, r.bufSize)
		if err != io.EOF {
			r.err = err
			return
		}
		// Past the windows: read the rest as a stream.
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
func (r *Reader) last() ([]byte, error) {
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
		r.start = r.end // the line cut by the error goes with it
		return r.last()
	}
	line := r.buf[r.start:r.end]
	r.start = r.end
	r.line++
	r.partial = true
	return r.finish(trimCR(line))
}

func (r *Reader) finish(line []byte) ([]byte, error) {
	if len(line) > r.MaxLine {
		return nil, r.tooLong()
	}
	return line, nil
}

func (r *Reader) tooLong() error {
	r.partial = false
	return fmt.Errorf("line %d: %w (over %d bytes)", r.line, ErrLineTooLong, r.MaxLine)
}

// longLine reads a line that does not fit buf (which it fills, from the
// line's start): the rest is read through buf, piece by piece, and kept
// until its newline unless it grows over MaxLine.
func (r *Reader) longLine() ([]byte, error) {
	if r.ra != nil {
		return r.longLineAt()
	}
	r.long = r.long[:0]
	r.dropBlocks()
	size := 0
	tooLong := false
	for {
		piece := r.buf[r.start:r.end]
		i := bytes.IndexByte(piece, '\n')
		if i >= 0 {
			piece = piece[:i+1]
		}
		size += len(piece)
		if !tooLong && size > r.MaxLine+2 {
			tooLong = true
			r.long = r.long[:0]
			r.dropBlocks()
		}
		if !tooLong {
			r.keep(piece)
		}
		r.start += len(piece)
		if i >= 0 || r.eof || r.err != nil {
			if i < 0 && r.err != nil {
				r.long = r.long[:0]
				r.dropBlocks()
				return r.last()
			}
			r.line++
			if tooLong {
				return nil, r.tooLong()
			}
			r.partial = i < 0
			line := r.joined()
			r.owned = cap(r.long) > smallLine
			if i >= 0 {
				line = line[:len(line)-1]
			}
			return r.finish(trimCR(line))
		}
		r.off += int64(r.end)
		r.start, r.end = 0, 0
		r.fill()
	}
}

// errShrank is returned when the input read back is shorter than what
// was read of it.
var errShrank = errors.New("input shrank while it was read")

// longLineAt is longLine with the input readable back: the line is
// measured through buf, then read back from ra into one slice of its size.
func (r *Reader) longLineAt() ([]byte, error) {
	from := r.off + int64(r.start)
	size := int64(0)
	found := len(r.SkipUnless) == 0
	if !found {
		r.head = append(r.head[:0], r.buf[r.start:min(r.end, r.start+skippedHead)]...)
	}
	var carry []byte // the end of the pieces searched so far
	for {
		piece := r.buf[r.start:r.end]
		i := bytes.IndexByte(piece, '\n')
		if i >= 0 {
			piece = piece[:i+1]
		}
		if !found {
			found, carry = r.holdsNeedle(carry, piece)
		}
		size += int64(len(piece))
		r.start += len(piece)
		if i >= 0 || r.eof || r.err != nil {
			if i < 0 && r.err != nil {
				return r.last()
			}
			r.line++
			r.partial = i < 0
			if i >= 0 {
				size-- // the newline
			}
			if size > int64(r.MaxLine)+1 {
				return nil, r.tooLong()
			}
			if !found {
				return trimCR(r.head[:min(len(r.head), int(size))]), ErrSkipped
			}
			if r.ranges != nil && r.InPlaceMin > 0 && size >= int64(r.InPlaceMin) {
				if b, err := r.ranges.Range(from, size); err == nil {
					r.inPlace = true
					return r.finish(trimCR(b))
				}
			}
			if cap(r.long) < int(size) {
				r.long = makeLong(int(size))
			}
			line := r.long[:size]
			r.owned = cap(r.long) > smallLine
			if n, err := r.ra.ReadAt(line, from); int64(n) < size {
				if err == nil || err == io.EOF {
					err = errShrank
				}
				r.partial = false
				return nil, fmt.Errorf("line %d: %w", r.line, err)
			}
			return r.finish(trimCR(line))
		}
		r.off += int64(r.end)
		r.start, r.end = 0, 0
		r.fill()
	}
}

// InPlace reports whether the line Next returned last is in place in the
// input (see InPlaceMin): valid until the next call, and not the caller's.
func (r *Reader) InPlace() bool { return r.inPlace }

// Own returns line, the line Next returned last, as a line read back is:
// copied out of the input when it was in place (into memory Owned then
// tells about, as if read back), else as it is.
func (r *Reader) Own(line []byte) []byte {
	if !r.inPlace {
		return line
	}
	size := len(line)
	if cap(r.long) < size {
		r.long = makeLong(size)
	}
	own := r.long[:size]
	// A piece at a time, each dropped from the range once copied: the
	// line's memory is its size once at the peak, not twice.
	for i := 0; i < size; i += blockSize {
		n := copy(own[i:], line[i:min(size, i+blockSize)])
		r.ranges.Drop(i + n)
	}
	r.owned = cap(r.long) > smallLine
	r.inPlace = false
	r.ranges.Unrange()
	return own
}

// keep stores a piece of the current long line.
func (r *Reader) keep(piece []byte) {
	if len(r.blocks) == 0 && len(r.long)+len(piece) <= smallLine {
		r.long = append(r.long, piece...)
		return
	}
	if len(r.blocks) == 0 {
		r.blocks = append(r.blocks, allocBlock(blockSize)[:0])
		r.blocks[0] = append(r.blocks[0], r.long...)
		r.long = r.long[:0]
	}
	for len(piece) > 0 {
		last := &r.blocks[len(r.blocks)-1]
		if len(*last) == cap(*last) {
			r.blocks = append(r.blocks, allocBlock(blockSize)[:0])
			last = &r.blocks[len(r.blocks)-1]
		}
		n := min(cap(*last)-len(*last), len(piece))
		*last = append(*last, piece[:n]...)
		piece = piece[n:]
	}
}

// joined returns the kept pieces as one slice, freeing each block once
// it is copied.
func (r *Reader) joined() []byte {
	if len(r.blocks) == 0 {
		return r.long
	}
	total := 0
	for _, b := range r.blocks {
		total += len(b)
	}
	r.long = makeLong(total)[:0]
	for i, b := range r.blocks {
		r.long = append(r.long, b...)
		freeBlock(b)
		r.blocks[i] = nil
	}
	r.blocks = r.blocks[:0]
	return r.long
}

// dropBlocks frees the blocks of a line given up.
func (r *Reader) dropBlocks() {
	for i, b := range r.blocks {
		freeBlock(b)
		r.blocks[i] = nil
	}
	r.blocks = r.blocks[:0]
}

// Line is the 1-based number of the line Next returned last.
func (r *Reader) Line() int { return r.line }

// Offset is the input offset just past the line Next returned last, its
// newline included: where the next line starts (a cache reads on from
// there).
func (r *Reader) Offset() int64 { return r.off + int64(r.start) }

// holdsNeedle reports whether piece, or carry followed by piece, holds one
// of SkipUnless, and returns what to carry into the next piece.
func (r *Reader) holdsNeedle(carry, piece []byte) (bool, []byte) {
	longest := 0
	for _, n := range r.SkipUnless {
		longest = max(longest, len(n))
	}
	joint := append(carry, piece[:min(len(piece), longest)]...)
	for _, n := range r.SkipUnless {
		if bytes.Contains(joint, n) || bytes.Contains(piece, n) {
			return true, carry
		}
	}
	if len(piece) >= longest {
		return false, append(carry[:0], piece[len(piece)-longest:]...)
	}
	return false, append(carry[:0], joint[max(0, len(joint)-longest):]...)
}

// Owned reports whether the line Next returned last is the caller's to
// keep: a long line, which the reader allocated for it alone and forgets.
func (r *Reader) Owned() bool { return r.owned }

// Partial reports whether the line Next returned last had no newline: the
// end of a file that is still being written, or of a hand-made file.
func (r *Reader) Partial() bool { return r.partial }

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}
