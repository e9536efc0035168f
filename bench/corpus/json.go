package corpus

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// safe[b] is true for ASCII bytes that JSON.stringify writes as they are.
var safe = func() (t [utf8.RuneSelf]bool) {
	for i := 0x20; i < utf8.RuneSelf; i++ {
		t[i] = i != '"' && i != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string the way JSON.stringify does:
// non-ASCII stays raw UTF-8, only quotes, backslashes and controls are escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || safe[c] {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// obj writes one JSON object with keys in the order given, which is how the
// CLI's records look and what keeps the output byte-identical per seed.
type obj struct {
	b     []byte
	first []bool
}

func (o *obj) key(k string) {
	n := len(o.first) - 1
	if !o.first[n] {
		o.b = append(o.b, ',')
	}
	o.first[n] = false
	o.b = append(o.b, '"')
	o.b = append(o.b, k...)
	o.b = append(o.b, '"', ':')
}

func (o *obj) open() *obj {
	o.b = append(o.b, '{')
	o.first = append(o.first, true)
	return o
}

func (o *obj) close() *obj {
	o.b = append(o.b, '}')
	o.first = o.first[:len(o.first)-1]
	return o
}

// openArr starts an array value; elements are added with elem*.
func (o *obj) openArr() *obj {
	o.b = append(o.b, '[')
	o.first = append(o.first, true)
	return o
}

func (o *obj) closeArr() *obj {
	o.b = append(o.b, ']')
	o.first = o.first[:len(o.first)-1]
	return o
}

func (o *obj) sep() {
	n := len(o.first) - 1
	if !o.first[n] {
		o.b = append(o.b, ',')
	}
	o.first[n] = false
}

func (o *obj) obj(k string) *obj     { o.key(k); return o.open() }
func (o *obj) arr(k string) *obj     { o.key(k); return o.openArr() }
func (o *obj) elemObj() *obj         { o.sep(); return o.open() }
func (o *obj) elemStr(s string) *obj { o.sep(); o.b = appendString(o.b, s); return o }
func (o *obj) str(k, v string) *obj  { o.key(k); o.b = appendString(o.b, v); return o }
func (o *obj) raw(k, v string) *obj  { o.key(k); o.b = append(o.b, v...); return o }
func (o *obj) null(k string) *obj    { return o.raw(k, "null") }
func (o *obj) int(k string, v int64) *obj {
	o.key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
	return o
}
func (o *obj) bool(k string, v bool) *obj {
	o.key(k)
	o.b = strconv.AppendBool(o.b, v)
	return o
}

// strOrNull writes null for an empty string (parentUuid at a root).
func (o *obj) strOrNull(k, v string) *obj {
	if v == "" {
		return o.null(k)
	}
	return o.str(k, v)
}

func (o *obj) time(k string, t time.Time) *obj {
	o.key(k)
	o.b = append(o.b, '"')
	o.b = t.UTC().AppendFormat(o.b, "2006-01-02T15:04:05.000Z")
	o.b = append(o.b, '"')
	return o
}
