package ndjson

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strings"
	"unicode/utf8"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// An Appender is a value that writes itself as the JSON encoding/json
// writes for it (compact, <, > and & left literal): a fast path for a fact
// written by the million (lib/extract's Tool), without reflection. When ok
// is false (a value it cannot write so), Writer and Marshal use
// encoding/json, its slow twin; a test keeps the two byte-identical.
type Appender interface {
	AppendJSON(dst []byte) (out []byte, ok bool)
}

// AppendString appends s as encoding/json writes a string with HTML
// escaping off: '"', '\\' and control bytes escaped (\b \f \n \r \t, the
// others as \u00xx), U+2028 and U+2029 as \u2028 and \u2029, each byte of
// invalid UTF-8 as \ufffd. (jsonscan.AppendString writes what
// JSON.stringify writes, which differs in the last two.)
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			m := stop8(load8(s, i))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = jsonscan.AppendEscapedByte(append(dst, s[start:i]...), c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&15])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// load8 reads s[i:i+8] as a little-endian word (one load, compiled).
func load8(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

const hexDigits = "0123456789abcdef"

// Canonical reports whether quoted, a JSON string as read (one a decode
// accepted, quotes included), is what AppendString writes for the text
// it stands for, so that it may be copied out as it is: its escapes are
// AppendString's (\" \\ \b \f \n \r \t, \u00xx in lowercase hex for the
// other control bytes, \u2028 and \u2029), its other bytes UTF-8 without
// those two characters. JSON.stringify writes such strings, but for those
// two characters, which it leaves raw.
func Canonical(quoted []byte) bool {
	if len(quoted) < 2 {
		return false
	}
	b := quoted[1 : len(quoted)-1]
	for i := 0; i < len(b); {
		if i+8 <= len(b) {
			m := stop8(binary.LittleEndian.Uint64(b[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		}
		c := b[i]
		switch {
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(b[i:])
			if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
				return false
			}
			i += size
		case c == '\\':
			if i+1 >= len(b) {
				return false
			}
			switch b[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 <= len(b) && string(b[i+2:i+5]) == "202" && (b[i+5] == '8' || b[i+5] == '9') {
					i += 6 // U+2028, U+2029
					break
				}
				// \u00xx for a control byte AppendString has no short form for.
				if i+6 > len(b) || b[i+2] != '0' || b[i+3] != '0' || (b[i+4] != '0' && b[i+4] != '1') {
					return false
				}
				x := strings.IndexByte(hexDigits, b[i+5])
				if x < 0 {
					return false
				}
				switch v := int(b[i+4]-'0')<<4 | x; v {
				case '\b', '\f', '\n', '\r', '\t':
					return false
				}
				i += 6
			default:
				return false
			}
		case c < 0x20 || c == '"':
			return false // not a string a decode accepted
		default:
			i++
		}
	}
	return true
}

const highs = 0x8080808080808080

// stop8 marks the bytes of x (8 bytes, little endian) AppendString must
// look at: jsonscan.Special's, and each byte of a multibyte sequence. The
// lowest mark is exact (higher ones may be borrows).
func stop8(x uint64) uint64 { return jsonscan.Special(x) | x&highs }

// AppendRaw appends raw, one valid JSON value (a json.RawMessage a decode
// checked), as encoding/json writes a json.RawMessage: compacted. A value
// without blanks outside its strings is copied as it is; ok is false when
// compacting fails (raw was not valid JSON).
func AppendRaw(dst, raw []byte) (out []byte, ok bool) {
	if raw == nil {
		return append(dst, "null"...), true
	}
	if len(raw) > 0 && compact(raw) {
		return append(dst, raw...), true
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return dst, false
	}
	return append(dst, b.Bytes()...), true
}

// compact reports whether JSON text b has no blank outside its strings.
// A string is skipped from quote to quote (a quote after an odd run of
// backslashes is escaped).
func compact(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			return false
		case '"':
			for {
				k := bytes.IndexByte(b[i+1:], '"')
				if k < 0 {
					return false
				}
				i += 1 + k
				n := 0
				for b[i-1-n] == '\\' {
					n++
				}
				if n%2 == 0 {
					break
				}
			}
		}
	}
	return true
}
