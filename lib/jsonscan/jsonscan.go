// Package jsonscan reads JSON without decoding it: a cursor that walks
// objects member by member and arrays element by element, reads the few
// strings and numbers a caller wants and skips the rest. Every byte it
// passes is checked against the JSON grammar (RFC 8259, as encoding/json
// reads it: UTF-8 is not checked), so a fast path built on it accepts and
// rejects exactly the lines a decode would. String bodies, most of a
// transcript's bytes, are skipped eight bytes at a time.
//
// It is the one scanner of ccpipe's fast paths: the transcript header scan
// and member walk, the usage scanner, cc-grep's record rewrite, the hook
// payload split and cc-send's record fields.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"unicode/utf8"

	"github.com/ccpipe/ccpipe/lib/bytescan"
)

// ErrSyntax is wrapped by every error of a Cursor: the text is not JSON,
// or not the JSON the caller asked for (an object where a string is).
var ErrSyntax = errors.New("invalid JSON")

// MaxDepth bounds nesting as encoding/json does, so that a hostile line
// cannot exhaust the stack.
const MaxDepth = 10000

// A Cursor walks one JSON text. The zero value is not usable; make one
// with New. Its methods return errors wrapping ErrSyntax with the byte
// offset of the fault.
type Cursor struct {
	b     []byte
	i     int
	depth int
	// open is set right after a '{' or '[': the next member or element
	// takes no comma.
	open bool
}

// New returns a cursor at the start of b.
func New(b []byte) Cursor { return Cursor{b: b} }

// Pos is the offset of the next byte the cursor reads.
func (c *Cursor) Pos() int { return c.i }

// Since returns the bytes read from offset start (a Pos) to here.
func (c *Cursor) Since(start int) []byte { return c.b[start:c.i] }

func (c *Cursor) fail(what string) error {
	return fmt.Errorf("%w: %s at byte %d", ErrSyntax, what, c.i)
}

func (c *Cursor) ws() {
	for c.i < len(c.b) {
		switch c.b[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

// Peek skips blanks and returns the first byte of the next value ('{',
// '[', '"', 't', 'f', 'n', '-' or a digit for a valid one), 0 at the end
// (a NUL byte reads 0 too: tell them apart with Pos).
func (c *Cursor) Peek() byte {
	c.ws()
	if c.i >= len(c.b) {
		return 0
	}
	return c.b[c.i]
}

// Enter consumes the '{' of an object; walk it with Member.
func (c *Cursor) Enter() error {
	if c.Peek() != '{' {
		return c.fail("expected an object")
	}
	return c.open1()
}

// EnterArray consumes the '[' of an array; walk it with Elem.
func (c *Cursor) EnterArray() error {
	if c.Peek() != '[' {
		return c.fail("expected an array")
	}
	return c.open1()
}

func (c *Cursor) open1() error {
	if c.depth++; c.depth > MaxDepth {
		return c.fail("nesting too deep")
	}
	c.i++
	c.open = true
	return nil
}

// next moves past the comma before the next item of the innermost object
// or array; ok is false when close ends it instead (and is consumed).
func (c *Cursor) next(close byte) (ok bool, err error) {
	c.ws()
	first := c.open
	c.open = false
	if c.i >= len(c.b) {
		return false, c.fail("unterminated " + kindName(close))
	}
	switch c.b[c.i] {
	case close:
		c.i++
		c.depth--
		return false, nil
	case ',':
		if first {
			return false, c.fail("unexpected ','")
		}
		c.i++
		c.ws()
		if c.i < len(c.b) && c.b[c.i] == close {
			if close == '}' {
				return false, c.fail("expected a key")
			}
			return false, c.fail("expected a value")
		}
		return true, nil
	}
	if !first {
		return false, c.fail("expected ',' or '" + string(close) + "'")
	}
	return true, nil
}

func kindName(close byte) string {
	if close == '}' {
		return "object"
	}
	return "array"
}

// Member moves to the next member of the object entered last and returns
// its key: the body between the quotes, still escaped when esc. The cursor
// is left at the member's value, which the caller must read or Skip. ok is
// false at the end of the object (its '}' consumed).
func (c *Cursor) Member() (key []byte, esc, ok bool, err error) {
	if ok, err = c.next('}'); !ok || err != nil {
		return nil, false, false, err
	}
	if c.i >= len(c.b) || c.b[c.i] != '"' {
		return nil, false, false, c.fail("expected a key")
	}
	s, e, esc, err := c.str()
	if err != nil {
		return nil, false, false, err
	}
	c.ws()
	if c.i >= len(c.b) || c.b[c.i] != ':' {
		return nil, false, false, c.fail("expected ':'")
	}
	c.i++
	c.ws()
	return c.b[s:e], esc, true, nil
}

// Elem moves to the next element of the array entered last; ok is false
// at its end (the ']' consumed).
func (c *Cursor) Elem() (ok bool, err error) {
	if ok, err = c.next(']'); ok {
		c.ws()
	}
	return ok, err
}

// RawString reads a string value and returns its body, still escaped when
// esc.
func (c *Cursor) RawString() (body []byte, esc bool, err error) {
	if c.Peek() != '"' {
		return nil, false, c.fail("expected a string")
	}
	s, e, esc, err := c.str()
	if err != nil {
		return nil, false, err
	}
	return c.b[s:e], esc, nil
}

// String reads a string value and returns it as encoding/json would
// decode it (escapes resolved, invalid UTF-8 replaced by U+FFFD). The
// result points into the text unless it had to be rewritten.
func (c *Cursor) String() ([]byte, error) {
	c.ws()
	q := c.i
	body, esc, err := c.RawString()
	if err != nil {
		return nil, err
	}
	return Unquote(c.b[q:c.i], body, esc), nil
}

func isASCIIOrUTF8(b []byte) bool {
	for i := 0; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&highs != 0 {
			return utf8.Valid(b)
		}
	}
	for _, x := range b[len(b)&^7:] {
		if x >= utf8.RuneSelf {
			return utf8.Valid(b)
		}
	}
	return true
}

// Key decodes a key Member returned.
func Key(key []byte, esc bool) string {
	if !esc && isASCIIOrUTF8(key) {
		return string(key)
	}
	return string(unescapeValid(key))
}

// Folds reports whether key (decoded) spells one of names in another
// case, or has non-ASCII bytes, which encoding/json may fold to ASCII
// (U+017F, U+212A): a decode into a struct matches such a key to the
// field, and a walk that compares keys exactly would not. Such walks give
// up on the line and decode it.
func Folds(key []byte, names ...string) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	for _, n := range names {
		if len(key) == len(n) && string(key) != n && bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}

// Number reads a number value and returns its literal.
func (c *Cursor) Number() ([]byte, error) {
	switch p := c.Peek(); {
	case p == '-' || (p >= '0' && p <= '9'):
	default:
		return nil, c.fail("expected a number")
	}
	s := c.i
	if err := c.number(); err != nil {
		return nil, err
	}
	return c.b[s:c.i], nil
}

// Bool reads true or false.
func (c *Cursor) Bool() (bool, error) {
	switch c.Peek() {
	case 't':
		return true, c.lit("true")
	case 'f':
		return false, c.lit("false")
	}
	return false, c.fail("expected true or false")
}

// Null reads null when it comes next and reports whether it did.
func (c *Cursor) Null() (bool, error) {
	if c.Peek() != 'n' {
		return false, nil
	}
	return true, c.lit("null")
}

// Skip consumes one value of any type, checking it.
func (c *Cursor) Skip() error {
	c.ws()
	return c.value(c.depth)
}

// Raw consumes one value and returns its bytes.
func (c *Cursor) Raw() ([]byte, error) {
	c.ws()
	s := c.i
	if err := c.value(c.depth); err != nil {
		return nil, err
	}
	return c.b[s:c.i], nil
}

// End checks that nothing but blanks follows.
func (c *Cursor) End() error {
	c.ws()
	if c.i != len(c.b) {
		return c.fail("data after the value")
	}
	return nil
}

func (c *Cursor) value(depth int) error {
	if c.i >= len(c.b) {
		return c.fail("expected a value")
	}
	switch ch := c.b[c.i]; {
	case ch == '"':
		_, _, _, err := c.str()
		return err
	case ch == '{':
		return c.object(depth + 1)
	case ch == '[':
		return c.array(depth + 1)
	case ch == 't':
		return c.lit("true")
	case ch == 'f':
		return c.lit("false")
	case ch == 'n':
		return c.lit("null")
	case ch == '-' || (ch >= '0' && ch <= '9'):
		return c.number()
	}
	return c.fail("unexpected character")
}

func (c *Cursor) object(depth int) error {
	if depth > MaxDepth {
		return c.fail("nesting too deep")
	}
	c.i++
	c.ws()
	if c.i < len(c.b) && c.b[c.i] == '}' {
		c.i++
		return nil
	}
	for {
		if c.i >= len(c.b) || c.b[c.i] != '"' {
			return c.fail("expected a key")
		}
		if _, _, _, err := c.str(); err != nil {
			return err
		}
		c.ws()
		if c.i >= len(c.b) || c.b[c.i] != ':' {
			return c.fail("expected ':'")
		}
		c.i++
		c.ws()
		if err := c.value(depth); err != nil {
			return err
		}
		if more, err := c.sep('}'); !more {
			return err
		}
	}
}

func (c *Cursor) array(depth int) error {
	if depth > MaxDepth {
		return c.fail("nesting too deep")
	}
	c.i++
	c.ws()
	if c.i < len(c.b) && c.b[c.i] == ']' {
		c.i++
		return nil
	}
	for {
		if err := c.value(depth); err != nil {
			return err
		}
		if more, err := c.sep(']'); !more {
			return err
		}
	}
}

// sep moves past what follows a member or element of the object or array
// being skipped: a comma (more is true) or close (it is consumed).
func (c *Cursor) sep(close byte) (more bool, err error) {
	c.ws()
	if c.i >= len(c.b) {
		return false, c.fail("unterminated " + kindName(close))
	}
	switch c.b[c.i] {
	case ',':
		c.i++
		c.ws()
		return true, nil
	case close:
		c.i++
		return false, nil
	}
	return false, c.fail("expected ',' or '" + string(close) + "'")
}

func (c *Cursor) lit(word string) error {
	if len(c.b)-c.i < len(word) || string(c.b[c.i:c.i+len(word)]) != word {
		return c.fail("invalid literal")
	}
	c.i += len(word)
	return nil
}

func (c *Cursor) number() error {
	b, i := c.b, c.i
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		c.i = i
		return c.fail("invalid number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			c.i = i
			return c.fail("invalid number")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			c.i = i
			return c.fail("invalid number")
		}
	}
	c.i = i
	return nil
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// Special marks the bytes of x (8 bytes, little endian) that are '"',
// '\\' or a control character: the only bytes a string scan must stop at,
// and the ASCII bytes an encoder must escape. Bits above the lowest mark
// may be spurious (borrows); the lowest is exact. (A byte's high bit is
// the same in x and in x^'"' or x^'\\', so one &^x serves the three
// tests.)
func Special(x uint64) uint64 {
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	return ((q - ones) | (bs - ones) | (x - ones*0x20)) &^ x & highs
}

// escapes is JSON's table of the bytes that may follow a backslash: for a
// two-byte escape the byte it stands for, 'u' for \uXXXX (no two-byte
// escape stands for a 'u'), 0 for none.
var escapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'u': 'u'}

// SimpleEscape returns the byte the two-byte escape \c stands for (\n: a
// newline), and false for \u and for a byte that may not follow a
// backslash.
func SimpleEscape(c byte) (byte, bool) {
	e := escapes[c]
	return e, e != 0 && c != 'u'
}

// str scans a string at c.b[c.i] == '"' and returns the bounds of its
// body and whether it holds escapes.
func (c *Cursor) str() (start, end int, esc bool, err error) {
	b := c.b
	i := c.i + 1
	start = i
	for {
		// Sixteen bytes a step while they last: the spans between
		// escapes and quotes are short, so the step's exit matters
		// more than its width.
		run := i
		for i+16 <= len(b) {
			if i-run >= longRun {
				// A long plain run (an image's base64, a file's text
				// without escapes): the rest of it by plainSpan.
				if i = plainSpan(b, i, i-run); i >= len(b) {
					c.i = i
					return 0, 0, false, c.fail("unterminated string")
				}
				goto found
			}
			w := b[i : i+16 : i+16]
			m := Special(binary.LittleEndian.Uint64(w))
			if m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto found
			}
			if m = Special(binary.LittleEndian.Uint64(w[8:])); m != 0 {
				i += 8 + bits.TrailingZeros64(m)>>3
				goto found
			}
			i += 16
		}
		if i+8 <= len(b) {
			if m := Special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto found
			}
			i += 8
		}
		for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
			i++
		}
		if i >= len(b) {
			c.i = i
			return 0, 0, false, c.fail("unterminated string")
		}
	found:
		switch ch := b[i]; {
		case ch == '"':
			c.i = i + 1
			return start, i, esc, nil
		case ch == '\\':
			esc = true
			if i+1 >= len(b) {
				c.i = i
				return 0, 0, false, c.fail("unterminated string")
			}
			switch escapes[b[i+1]] {
			case 'u':
				if i+6 > len(b) || !hex4(b[i+2:i+6]) {
					c.i = i
					return 0, 0, false, c.fail("invalid \\u escape")
				}
				i += 6
			case 0:
				c.i = i
				return 0, 0, false, c.fail("invalid escape")
			default:
				i += 2
			}
		default: // a control character
			c.i = i
			return 0, 0, false, c.fail("control character in string")
		}
	}
}

// longRun is the plain run after which str looks for the run's end by
// plainSpan (var: the tests set it to compare both scans).
var longRun = 256

// plainSpan is the first i' >= i where b holds '"', '\\' or a control
// character, or len(b): each found by a vector scan of a window (w bytes,
// the run seen so far, doubled while none ends in it), not a byte at a
// time. The window keeps a run that ends soon from costing a scan of the
// whole rest of b.
func plainSpan(b []byte, i, w int) int {
	w = max(w, 16)
	for {
		end := min(len(b), i+w)
		win := b[i:end]
		n := len(win)
		if k := bytes.IndexByte(win, '"'); k >= 0 {
			n = k
		}
		if k := bytes.IndexByte(win[:n], '\\'); k >= 0 {
			n = k
		}
		if k := bytescan.IndexPair(win[:n], 0, 0x1f, 0x1f, 0x1f, 0x1f); k >= 0 { // a byte <= 0x1f
			n = k
		}
		if n < len(win) || end == len(b) {
			return i + n
		}
		i, w = end, min(2*w, 1<<20)
	}
}

func hex4(b []byte) bool {
	for _, ch := range b {
		if !('0' <= ch && ch <= '9' || 'a' <= ch && ch <= 'f' || 'A' <= ch && ch <= 'F') {
			return false
		}
	}
	return true
}

// Valid reports whether b is one JSON value, as json.Valid does.
func Valid(b []byte) bool {
	c := New(b)
	return c.Skip() == nil && c.End() == nil
}

// ErrNotObject is returned by Members for JSON text that does not start
// with '{'.
var ErrNotObject = errors.New("not a JSON object")

// A Member is one top-level member of an object, as Members gives it.
type Member struct {
	Key   []byte // the key's body, still escaped when Esc
	Esc   bool
	Bytes []byte // from the key's opening quote to the end of its value
	Value []byte // the value's bytes
}

// Name is the member's key, decoded.
func (m *Member) Name() string { return Key(m.Key, m.Esc) }

// RawKey is the key as written, quotes included.
func (m *Member) RawKey() []byte { return m.Bytes[:len(m.Key)+2] }

// Members checks that b is one JSON object and nothing else, and calls
// fn for each of its members in order. It stops at the first error fn
// returns. Text that is not an object at all gives ErrNotObject (a blank
// one a syntax error).
func Members(b []byte, fn func(m *Member) error) error {
	c := New(b)
	if c.Peek() != '{' {
		if c.Pos() == len(b) {
			return fmt.Errorf("%w: empty input", ErrSyntax)
		}
		return ErrNotObject
	}
	if err := c.Enter(); err != nil {
		return err
	}
	var m Member
	for {
		key, esc, ok, err := c.Member()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		start := c.keyQuote(key)
		val, err := c.Raw()
		if err != nil {
			return err
		}
		m = Member{Key: key, Esc: esc, Bytes: c.b[start:c.i], Value: val}
		if err := fn(&m); err != nil {
			return err
		}
	}
	return c.End()
}

// keyQuote is the offset of key's opening quote; key is a slice of c.b.
func (c *Cursor) keyQuote(key []byte) int {
	return cap(c.b) - cap(key) - 1
}

// StringOf is the text of v, a JSON string value; "" for any other value
// (or a malformed string).
func StringOf(v []byte) string {
	c := New(v)
	if c.Peek() != '"' {
		return ""
	}
	s, err := c.String()
	if err != nil {
		return ""
	}
	return string(s)
}
