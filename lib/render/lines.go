package render

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// MaxString is the most of one JSON string a page shows: a longer one (a
// tool output of many MB) is cut as it is read, before the line is held,
// and the page says how much was left out. This is what bounds memory: a
// transcript line is never held whole, whatever its size.
var MaxString = 128 << 10

// maxHeld bounds what a line holds once its strings are cut: bytes
// outside strings (a line that is not JSON at all, a 300 MB run of
// digits) and many cut strings alike. The rest of a longer line is read
// and dropped, never held (lineReader.over), and the line is skipped.
var maxHeld = 64 * MaxString

// lineReader reads transcript lines with every JSON string longer than
// MaxString cut short. It follows JSON strings byte by byte (quotes and
// escapes) and cuts only between characters, never inside an escape or a
// UTF-8 sequence, so a cut line is as valid as the line was.
type lineReader struct {
	br      *bufio.Reader
	buf     []byte
	n       int  // number of the line last returned
	cut     int  // strings cut in the line last returned
	partial bool // the line last returned had no newline
	// over counts the bytes of the line last returned that were dropped
	// past maxHeld: the line is cut, not a record any more.
	over int64
	// spill, when set, takes the long base64 "data" strings (images)
	// instead of cutting them: see spiller.
	spill *spiller
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line (without its newline), valid until the
// following call, or io.EOF.
func (r *lineReader) next() ([]byte, error) {
	if cap(r.buf) > 4*MaxString {
		r.buf = nil // do not keep a long line's memory
	}
	r.buf, r.cut, r.partial, r.over = r.buf[:0], 0, false, 0
	var (
		inString, esc, dropping bool
		strLen, dropped         int
		hex                     int    // hex digits of a \u escape still to come
		start                   int    // where the current string's body starts in buf
		prev                    byte   // the last byte outside strings, blanks aside
		key, last               []byte // the last object key; the last string (head)
		isData                  bool   // the string is the value of a "data" key
		sp                      *spill // where the current string goes, once long
	)
	for {
		chunk, err := r.br.ReadSlice('\n')
		if r.over > 0 || len(r.buf) > maxHeld {
			// Past the bound: the rest of the line is counted, not held.
			if r.over == 0 {
				r.over, r.buf = int64(len(r.buf)-maxHeld), r.buf[:maxHeld]
				if sp != nil {
					sp.abort()
					sp = nil
				}
			}
			if i := len(chunk) - 1; i >= 0 && chunk[i] == '\n' {
				r.over += int64(i)
				r.n++
				return r.buf, nil
			}
			r.over += int64(len(chunk))
			if err == io.EOF {
				r.partial = true
				r.n++
				return r.buf, nil
			}
			if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
				return nil, err
			}
			continue
		}
		if len(chunk) == 0 && err == io.EOF {
			if len(r.buf) == 0 {
				return nil, io.EOF
			}
			r.partial = true
			r.n++
			return r.buf, nil
		}
		for i := 0; i < len(chunk); i++ {
			c := chunk[i]
			if inString && !esc && hex == 0 && sp == nil && !dropping {
				// The body of a string up to its next quote, escape or
				// the line's end goes over at once while it fits.
				j := i
				for j < len(chunk) && chunk[j] != '"' && chunk[j] != '\\' && chunk[j] != '\n' {
					j++
				}
				if n := j - i; n > 0 && strLen+n <= MaxString {
					r.buf = append(r.buf, chunk[i:j]...)
					strLen += n
					i = j - 1
					continue
				}
			}
			switch {
			case c == '\n':
				// A raw newline never sits in a JSON string: the line ends.
				r.n++
				if sp != nil {
					sp.abort()
				}
				return trimCR(r.buf), nil
			case !inString:
				switch c {
				case '"':
					inString, strLen, start = true, 0, len(r.buf)+1
					isData = prev == ':' && string(key) == "data" && r.spill != nil
				case ':':
					key = append(key[:0], last...)
				}
				if c != ' ' && c != '\t' && c != '\r' {
					prev = c
				}
				r.buf = append(r.buf, c)
			case esc:
				esc = false
				if c == 'u' {
					hex = 4
				}
				switch {
				case sp != nil:
					sp.add(c, true)
				case dropping:
					dropped++
				default:
					r.buf = append(r.buf, c)
					strLen++
				}
			case c == '"':
				switch {
				case sp != nil:
					r.buf = append(r.buf, sp.finish()...)
					sp = nil
				case dropping:
					r.buf = append(r.buf, fmt.Sprintf(`\n\n[%s more not shown: a page shows at most %s of one text]`, size(dropped), size(MaxString))...)
					r.cut++
				}
				last = append(last[:0], r.buf[start:min(len(r.buf), start+8)]...)
				r.buf = append(r.buf, c)
				inString, dropping, dropped, prev = false, false, 0, '"'
			default:
				if c == '\\' {
					esc = true
				}
				inEscape := hex > 0
				if hex > 0 {
					hex--
				}
				if sp == nil && !dropping && strLen >= MaxString && c&0xC0 != 0x80 && !inEscape {
					if isData {
						sp = r.spill.begin(r.buf[start:])
						r.buf = r.buf[:start]
					} else {
						dropping = true
					}
				}
				switch {
				case sp != nil:
					sp.add(c, false)
				case dropping:
					dropped++
				default:
					r.buf = append(r.buf, c)
					strLen++
				}
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			if err == io.EOF {
				continue // the last line, without a newline: ends above
			}
			return nil, err
		}
	}
}

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}

// spiller keeps long image data out of memory: a base64 "data" string
// over MaxString goes to a file of its own, and the line holds a reference
// instead, which the page resolves when it writes the image.
type spiller struct {
	ref   string // spillRef and a nonce: a transcript cannot forge one
	dir   string
	files []string // by reference number
	ok    []bool   // the file holds only the base64 alphabet
}

// spillRef starts the reference a spilled string is replaced by; it is not
// base64, so nothing else takes it for image data.
const spillRef = "cc-render-spill:"

func newSpiller() *spiller {
	return &spiller{ref: spillRef + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"}
}

type spill struct {
	s   *spiller
	f   *os.File
	w   *bufio.Writer
	ok  bool
	err error
}

func (s *spiller) begin(head []byte) *spill {
	sp := &spill{s: s, ok: true}
	if s.dir == "" {
		s.dir, sp.err = os.MkdirTemp("", "cc-render-images-")
	}
	if sp.err == nil {
		sp.f, sp.err = os.CreateTemp(s.dir, "image-*")
	}
	if sp.err == nil {
		sp.w = bufio.NewWriterSize(sp.f, 64<<10)
	}
	for i, c := range head {
		sp.add(c, i > 0 && head[i-1] == '\\')
	}
	return sp
}

// add takes one byte of the string body; escaped is set for the byte after
// a backslash (only "\/" is base64).
func (sp *spill) add(c byte, escaped bool) {
	switch {
	case c == '\\' && !escaped:
		return
	case escaped && c != '/':
		sp.ok = false
	case !isBase64(c):
		sp.ok = false
	}
	if sp.w != nil && sp.err == nil {
		sp.err = sp.w.WriteByte(c)
	}
}

func isBase64(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '='
}

// finish closes the file and returns the reference that stands for it.
func (sp *spill) finish() string {
	if sp.err == nil {
		sp.err = sp.w.Flush()
	}
	if sp.f != nil {
		if err := sp.f.Close(); sp.err == nil {
			sp.err = err
		}
	}
	if sp.err != nil {
		if sp.f != nil {
			os.Remove(sp.f.Name())
		}
		return sp.s.ref + "-1"
	}
	sp.s.files = append(sp.s.files, sp.f.Name())
	sp.s.ok = append(sp.s.ok, sp.ok)
	return sp.s.ref + strconv.Itoa(len(sp.s.files)-1)
}

// abort drops a string the line ended inside of.
func (sp *spill) abort() {
	if sp.f != nil {
		sp.f.Close()
		os.Remove(sp.f.Name())
	}
}

// lookup returns the file of a reference, and whether it holds base64.
func (s *spiller) lookup(data string) (path string, ok bool) {
	if s == nil {
		return "", false
	}
	ref, found := strings.CutPrefix(data, s.ref)
	if !found {
		return "", false
	}
	i, err := strconv.Atoi(ref)
	if err != nil || i < 0 || i >= len(s.files) {
		return "", false
	}
	return s.files[i], s.ok[i]
}

// remove deletes the spilled files.
func (s *spiller) remove() {
	if s != nil && s.dir != "" {
		os.RemoveAll(s.dir)
	}
}
