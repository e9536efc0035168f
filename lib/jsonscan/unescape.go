package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// Unquote returns the decoded value of a scanned string: quoted is the
// string with its quotes, body without them, esc whether it holds
// escapes.
func Unquote(quoted, body []byte, esc bool) []byte {
	if !esc && isASCIIOrUTF8(body) {
		return body
	}
	return unescapeValid(body)
}

// unescapeValid decodes a string body the scanner accepted, as
// encoding/json does.
func unescapeValid(b []byte) []byte {
	out, _ := unescape(make([]byte, 0, len(b)), b, false, -1)
	return out
}

// AppendUnescaped appends the decoded body of a JSON string (without its
// quotes) to dst, as encoding/json decodes it (escapes resolved, a lone or
// unpaired surrogate replaced by U+FFFD), except that bytes that are not
// UTF-8 are kept as they are: cc-redact writes a string back with only its
// secret changed. A bad or cut escape is an error.
func AppendUnescaped(dst, body []byte) ([]byte, error) { return unescape(dst, body, true, -1) }

// AppendUnescapedPrefix is AppendUnescaped that stops once at least limit
// bytes are decoded: body may be the rest of a string from any point not
// inside an escape, and an escape cut by the end of body is not an error
// once limit bytes are decoded.
func AppendUnescapedPrefix(dst, body []byte, limit int) ([]byte, error) {
	return unescape(dst, body, true, max(0, limit))
}

var (
	errEscape  = errors.New("bad escape")
	errUEscape = errors.New(`bad \u escape`)
)

// unescape is the one JSON string decoder: keep says invalid UTF-8 is
// copied (else replaced by U+FFFD, byte by byte, as encoding/json does);
// limit >= 0 stops once that many bytes are decoded.
func unescape(dst, b []byte, keep bool, limit int) ([]byte, error) {
	n0 := len(dst)
	for i := 0; i < len(b); {
		if limit >= 0 && len(dst)-n0 >= limit {
			return dst, nil
		}
		j := plainRun(b, i, keep)
		if limit >= 0 {
			j = min(j, i+limit-(len(dst)-n0))
		}
		dst = append(dst, b[i:j]...)
		if i = j; i >= len(b) {
			break
		}
		if b[i] != '\\' {
			if keep {
				continue // cut by the limit
			}
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, b[i:i+size]...)
			}
			i += size
			continue
		}
		if i+1 >= len(b) {
			return dst, errEscape
		}
		if e, ok := SimpleEscape(b[i+1]); ok {
			dst = append(dst, e)
			i += 2
			continue
		}
		if b[i+1] != 'u' {
			return dst, errEscape
		}
		r, ok := hexRune(b[i+2:])
		if !ok {
			return dst, errUEscape
		}
		i += 6
		if utf16.IsSurrogate(r) {
			r2, ok := rune(-1), false
			if i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
				r2, ok = hexRune(b[i+2:])
			}
			if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
				i += 6
				r = dec
			} else {
				r = utf8.RuneError
			}
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst, nil
}

// plainRun is the end of the bytes from i on that are copied as they
// are: up to the next escape, and with !keep the next byte that is not
// ASCII (found eight bytes a step).
func plainRun(b []byte, i int, keep bool) int {
	if keep {
		if k := bytes.IndexByte(b[i:], '\\'); k >= 0 {
			return i + k
		}
		return len(b)
	}
	j := i
	for j+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[j : j+8 : j+8])
		bs := x ^ (ones * '\\')
		if m := ((bs - ones) | x) & highs; m != 0 {
			j += bits.TrailingZeros64(m) >> 3
			break
		}
		j += 8
	}
	for j < len(b) && b[j] != '\\' && b[j] < utf8.RuneSelf {
		j++
	}
	return j
}

// hexRune reads the four hex digits of a \u escape.
func hexRune(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c|0x20 && c|0x20 <= 'f':
			c = (c | 0x20) - 'a' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
