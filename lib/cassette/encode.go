package cassette

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// ErrNonFinite is returned when a value to encode holds NaN or an
// infinity: JSON.parse can produce one (1e400) but canonical text has no
// spelling for it, so hashing refuses it.
var ErrNonFinite = errors.New("non-finite number")

// AppendCanonical appends the canonical JSON of v: no whitespace, object
// keys sorted by UTF-16 code units, numbers and strings as JavaScript's
// JSON.stringify writes them.
func AppendCanonical(dst []byte, v Value) ([]byte, error) {
	e := encoder{sorted: true}
	return e.append(dst, v, 0)
}

// AppendJS appends v as compact JSON.stringify(v) would: members in the
// value's own order.
func AppendJS(dst []byte, v Value) ([]byte, error) {
	e := encoder{}
	return e.append(dst, v, 0)
}

// AppendIndent appends v as JSON.stringify(v, null, 2): two-space
// indent, ": " after keys, no trailing newline.
func AppendIndent(dst []byte, v Value) ([]byte, error) {
	e := encoder{indent: true}
	return e.append(dst, v, 0)
}

type encoder struct {
	sorted bool
	indent bool
	order  []int // scratch for sorting keys
	// sink, when set, receives the text as it is made: dst is handed to
	// it and emptied once it holds flushAt bytes, and long strings go to
	// it piece by piece, so hashing a step needs no copy of its text.
	sink io.Writer
}

const flushAt = 64 << 10

// flush hands dst to the sink once it is large.
func (e *encoder) flush(dst []byte) []byte {
	if e.sink != nil && len(dst) >= flushAt {
		e.sink.Write(dst)
		return dst[:0]
	}
	return dst
}

// appendLongString streams a long string to the sink in pieces cut at
// character starts.
func (e *encoder) appendLongString(dst []byte, v Value) []byte {
	e.sink.Write(append(dst, '"'))
	dst = dst[:0]
	s := v.str
	for len(s) > 0 {
		n := min(len(s), flushAt)
		for n < len(s) && s[n]&0xC0 == 0x80 {
			n++ // do not split a character
		}
		if v.plain {
			e.sink.Write(unsafeBytes(s[:n]))
		} else {
			dst = appendStringBody(dst[:0], s[:n])
			e.sink.Write(dst)
			dst = dst[:0]
		}
		s = s[n:]
	}
	return append(dst, '"')
}

// newline appends a line break and the indent of depth, handing full
// buffers to the sink as it goes: deep nesting makes indentation
// quadratic in the depth, so it must never be built whole in memory.
func (e *encoder) newline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for n := 2 * depth; n > 0; {
		k := min(n, len(spaces))
		dst = append(dst, spaces[:k]...)
		n -= k
		dst = e.flush(dst)
	}
	return dst
}

var spaces = strings.Repeat(" ", 4096)

// WriteIndent writes v to w as JSON.stringify(v, null, 2), as it is
// made: memory stays bounded by the largest string, whatever the nesting.
func WriteIndent(w io.Writer, v Value) error {
	sw := &stickyWriter{w: w}
	e := encoder{indent: true, sink: sw}
	dst, err := e.append(make([]byte, 0, flushAt+4096), v, 0)
	if err != nil {
		return err
	}
	sw.Write(dst)
	return sw.err
}

// stickyWriter keeps the first write error (the encoder's sink ignores
// errors) and writes nothing after it.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err == nil {
		_, s.err = s.w.Write(p)
	}
	return len(p), nil
}

func (e *encoder) append(dst []byte, v Value, depth int) ([]byte, error) {
	var err error
	switch v.kind {
	case Null:
		return append(dst, "null"...), nil
	case Bool:
		if v.b {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case Number:
		return AppendNumber(dst, v.num)
	case String:
		if e.sink != nil && len(v.str) > flushAt {
			return e.appendLongString(dst, v), nil
		}
		dst = append(dst, '"')
		switch {
		case v.plain:
			dst = append(dst, v.str...)
		case v.esc != nil:
			dst = append(dst, v.esc.get(v.str)...)
		default:
			dst = appendStringBody(dst, v.str)
		}
		return append(dst, '"'), nil
	case Array:
		if len(v.arr) == 0 {
			return append(dst, "[]"...), nil
		}
		dst = append(dst, '[')
		for i, item := range v.arr {
			if i > 0 {
				dst = append(dst, ',')
			}
			if e.indent {
				dst = e.newline(dst, depth+1)
			}
			if dst, err = e.append(dst, item, depth+1); err != nil {
				return dst, err
			}
			dst = e.flush(dst)
		}
		if e.indent {
			dst = e.newline(dst, depth)
		}
		return append(dst, ']'), nil
	case Object:
		if len(v.obj) == 0 {
			return append(dst, "{}"...), nil
		}
		dst = append(dst, '{')
		if e.sorted {
			return e.appendSorted(dst, v.obj)
		}
		for i := range v.obj {
			m := &v.obj[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			if e.indent {
				dst = e.newline(dst, depth+1)
			}
			dst = AppendString(dst, m.Key)
			dst = append(dst, ':')
			if e.indent {
				dst = append(dst, ' ')
			}
			if dst, err = e.append(dst, m.Value, depth+1); err != nil {
				return dst, err
			}
			dst = e.flush(dst)
		}
		if e.indent {
			dst = e.newline(dst, depth)
		}
		return append(dst, '}'), nil
	}
	return dst, fmt.Errorf("cassette: bad value kind %d", v.kind)
}

func (e *encoder) appendSorted(dst []byte, obj []Member) ([]byte, error) {
	base := len(e.order)
	for i := range obj {
		e.order = append(e.order, i)
	}
	order := e.order[base:]
	// Insertion sort: objects are small, and it needs no allocation.
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && keyLess(obj[order[j]].Key, obj[order[j-1]].Key); j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	var err error
	for i, k := range order {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, obj[k].Key)
		dst = append(dst, ':')
		if dst, err = e.append(dst, obj[k].Value, 0); err != nil {
			break
		}
		dst = e.flush(dst)
	}
	e.order = e.order[:base]
	if err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

// keyLess orders strings by UTF-16 code units, JavaScript's default
// sort. UTF-8 byte order is code point order, which agrees except between
// a character in U+E000..U+FFFF and an astral one (or a lone surrogate),
// so only a difference at a lead byte of 0xED or above takes the slow
// path.
func keyLess(a, b string) bool {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) < len(b)
	}
	if a[i] < 0xED && b[i] < 0xED {
		return a[i] < b[i]
	}
	// Back up to the start of the differing characters.
	for i > 0 && a[i]&0xC0 == 0x80 {
		i--
	}
	ua, ub := utf16Units(a[i:]), utf16Units(b[i:])
	for k := 0; k < len(ua) && k < len(ub); k++ {
		if ua[k] != ub[k] {
			return ua[k] < ub[k]
		}
	}
	return len(ua) < len(ub)
}

// utf16Units converts a WTF-8 string to UTF-16 code units.
func utf16Units(s string) []uint16 {
	out := make([]uint16, 0, len(s))
	for i := 0; i < len(s); {
		if u, ok := wtf8Surrogate(s, i); ok {
			out = append(out, u)
			i += 3
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			out = append(out, uint16(hi), uint16(lo))
		} else {
			out = append(out, uint16(r))
		}
	}
	return out
}

// wtf8Surrogate reports a three-byte encoded surrogate at s[i].
func wtf8Surrogate(s string, i int) (uint16, bool) {
	if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2]&0xC0 == 0x80 {
		return uint16(0xD000 | uint16(s[i+1]&0x3F)<<6 | uint16(s[i+2]&0x3F)), true
	}
	return 0, false
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string the way JSON.stringify writes
// it: '"' and '\\' escaped, \b \f \n \r \t, other controls as \u00xx,
// lone surrogates as \udxxx (lowercase), everything else raw (U+2028,
// U+2029 and '/' included). Invalid UTF-8 is written as U+FFFD.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = appendStringBody(dst, s)
	return append(dst, '"')
}

// appendStringBody is AppendString without the quotes. It is
// jsonscan.AppendEscaped except on ill-formed UTF-8, which
// JSON.stringify sees as UTF-16: a lone surrogate (WTF-8) becomes
// \udxxx, any other bad byte U+FFFD.
func appendStringBody(dst []byte, s string) []byte {
	if utf8.ValidString(s) {
		return jsonscan.AppendEscaped(dst, s)
	}
	start := 0
	for i := 0; i < len(s); {
		if s[i] < 0x80 {
			i++
			continue
		}
		if u, ok := wtf8Surrogate(s, i); ok {
			dst = jsonscan.AppendEscaped(dst, s[start:i])
			dst = append(dst, '\\', 'u', hexDigits[u>>12], hexDigits[u>>8&0xF], hexDigits[u>>4&0xF], hexDigits[u&0xF])
			i += 3
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = jsonscan.AppendEscaped(dst, s[start:i])
			dst = append(dst, "\uFFFD"...)
			i++
			start = i
			continue
		}
		i += n
	}
	return jsonscan.AppendEscaped(dst, s[start:])
}

// AppendNumber appends f as JavaScript's Number.prototype.toString
// writes it (what JSON.stringify emits): shortest round-trip digits,
// plain notation for exponents -7 < e < 21, else d.ddde±x; -0 as 0.
func AppendNumber(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, ErrNonFinite
	}
	if f == 0 {
		return append(dst, '0'), nil
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendInt(dst, int64(f), 10), nil
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	var scratch [32]byte
	e := strconv.AppendFloat(scratch[:0], f, 'e', -1, 64) // d.ddde±xx
	mant, exp := e, 0
	for i, c := range e {
		if c == 'e' {
			mant = e[:i]
			x, _ := strconv.Atoi(string(e[i+1:]))
			exp = x
			break
		}
	}
	var digits [24]byte
	k := 0
	for _, c := range mant {
		if c != '.' {
			digits[k] = c
			k++
		}
	}
	d := digits[:k]
	n := exp + 1 // value = 0.d1...dk × 10^n
	switch {
	case k <= n && n <= 21:
		dst = append(dst, d...)
		for i := 0; i < n-k; i++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, d[:n]...)
		dst = append(dst, '.')
		dst = append(dst, d[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for i := 0; i < -n; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, d...)
	default:
		dst = append(dst, d[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, d[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst, nil
}
