package cassette

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// MaxDepth bounds the nesting of arrays and objects Parse accepts, so a
// hostile input cannot exhaust the stack.
const MaxDepth = 10000

// SyntaxError is a JSON text Parse rejects. Offset is the byte offset of
// the problem in the (UTF-8 repaired) input.
type SyntaxError struct {
	Msg    string
	Offset int
	Line   int // 1-based
	Column int // 1-based, in bytes
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s (line %d, column %d)", e.Msg, e.Line, e.Column)
}

// Parse parses one JSON text as Node's JSON.parse does: strict grammar
// (no comments, no trailing commas, no leading zeros), numbers to
// doubles (1e400 becomes +Inf, which encoding then refuses), escaped lone
// surrogates kept, invalid UTF-8 bytes read as U+FFFD, and repeated keys
// merged (last value, first position). Whitespace may surround the value.
func Parse(data []byte) (Value, error) {
	if !utf8.Valid(data) {
		data = repairUTF8(data)
	}
	p := parser{data: data}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return Value{}, p.errorf("unexpected %s after the JSON value", p.describe())
	}
	return v, nil
}

type parser struct {
	data []byte
	pos  int
	buf  []byte // scratch for strings with escapes
	// Members and items of the objects and arrays being read, nested ones
	// above their parents': each container is copied out once, at its
	// exact size, when it ends.
	members []Member
	items   []Value
}

func (p *parser) errorf(format string, a ...any) error {
	e := &SyntaxError{Msg: fmt.Sprintf(format, a...), Offset: p.pos, Line: 1, Column: 1}
	for i := 0; i < p.pos && i < len(p.data); i++ {
		if p.data[i] == '\n' {
			e.Line++
			e.Column = 1
		} else {
			e.Column++
		}
	}
	return e
}

// describe names the byte at pos for an error, never quoting content
// beyond one ASCII character.
func (p *parser) describe() string {
	if p.pos >= len(p.data) {
		return "end of input"
	}
	c := p.data[p.pos]
	if c >= 0x21 && c < 0x7f {
		return fmt.Sprintf("character %q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (p *parser) skipSpace() { p.pos = skipSpace(p.data, p.pos) }

// skipSpace returns the position of the first byte at or after i that is
// not JSON whitespace.
func skipSpace(d []byte, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (p *parser) value(depth int) (Value, error) {
	if p.pos >= len(p.data) {
		return Value{}, p.errorf("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, plain, esc, err := p.str()
		if err != nil {
			return Value{}, err
		}
		v := stringValue(s, plain)
		if esc != nil {
			v.esc.body = esc
			v.esc.once.Do(func() {})
		}
		return v, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", BoolValue(true))
	case c == 'f':
		return p.literal("false", BoolValue(false))
	case c == 'n':
		return p.literal("null", Value{})
	default:
		return Value{}, p.errorf("unexpected %s", p.describe())
	}
}

func (p *parser) literal(word string, v Value) (Value, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return Value{}, p.errorf("unexpected %s", p.describe())
	}
	p.pos += len(word)
	return v, nil
}

func (p *parser) object(depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, p.errorf("nesting deeper than %d", MaxDepth)
	}
	p.pos++ // {
	base := len(p.members)
	defer func() { p.members = p.members[:base] }()
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return Value{kind: Object, obj: []Member{}}, nil
	}
	simple := true // no repeated key, no array-index key: file order is the order
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return Value{}, p.errorf("expected a string key, found %s", p.describe())
		}
		key, err := p.key()
		if err != nil {
			return Value{}, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return Value{}, p.errorf("expected ':' after an object key, found %s", p.describe())
		}
		p.pos++
		p.skipSpace()
		v, err := p.value(depth)
		if err != nil {
			return Value{}, err
		}
		if simple {
			if key != "" && key[0] >= '0' && key[0] <= '9' {
				_, isIndex := arrayIndex(key)
				simple = !isIndex
			}
			if cur := p.members[base:]; simple && len(cur) <= 32 {
				for i := range cur {
					if cur[i].Key == key {
						simple = false
						break
					}
				}
			} else {
				simple = false // large objects go through the builder's map
			}
		}
		p.members = append(p.members, Member{key, v})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return Value{}, p.errorf("unexpected end of input in an object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			cur := p.members[base:]
			if simple {
				return Value{kind: Object, obj: append(make([]Member, 0, len(cur)), cur...)}, nil
			}
			var o objectBuilder
			for _, m := range cur {
				o.add(m.Key, m.Value)
			}
			return o.value(), nil
		default:
			return Value{}, p.errorf("expected ',' or '}' in an object, found %s", p.describe())
		}
	}
}

func (p *parser) array(depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, p.errorf("nesting deeper than %d", MaxDepth)
	}
	p.pos++ // [
	base := len(p.items)
	defer func() { p.items = p.items[:base] }()
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return Value{kind: Array, arr: []Value{}}, nil
	}
	for {
		p.skipSpace()
		v, err := p.value(depth)
		if err != nil {
			return Value{}, err
		}
		p.items = append(p.items, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return Value{}, p.errorf("unexpected end of input in an array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			cur := p.items[base:]
			return Value{kind: Array, arr: append(make([]Value, 0, len(cur)), cur...)}, nil
		default:
			return Value{}, p.errorf("expected ',' or ']' in an array, found %s", p.describe())
		}
	}
}

func (p *parser) number() (Value, error) {
	start := p.pos
	d := p.data
	i := p.pos
	if d[i] == '-' {
		i++
	}
	intStart := i
	if i < len(d) && d[i] == '0' {
		i++
	} else if i < len(d) && d[i] >= '1' && d[i] <= '9' {
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	} else {
		p.pos = i
		return Value{}, p.errorf("expected a digit, found %s", p.describe())
	}
	intEnd := i
	simple := true
	if i < len(d) && d[i] == '.' {
		simple = false
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			p.pos = i
			return Value{}, p.errorf("expected a digit after '.', found %s", p.describe())
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		simple = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			p.pos = i
			return Value{}, p.errorf("expected a digit in an exponent, found %s", p.describe())
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	p.pos = i
	if simple && intEnd-intStart <= 15 {
		var n int64
		for _, c := range d[intStart:intEnd] {
			n = n*10 + int64(c-'0')
		}
		f := float64(n)
		if intStart > start {
			f = -f
		}
		return Value{kind: Number, num: f}, nil
	}
	f, err := strconv.ParseFloat(string(d[start:i]), 64)
	if err != nil && !math.IsInf(f, 0) {
		// Underflow rounds to zero as in JavaScript; other errors cannot
		// happen on text the grammar above accepted.
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return Value{}, p.errorf("bad number")
		}
	}
	return Value{kind: Number, num: f}, nil
}

// plainByte marks the bytes a string may hold and still be written raw
// between quotes: everything but '"', '\\', controls and 0xED (which may
// start a WTF-8 surrogate).
var plainByte = func() (t [256]bool) {
	for i := range t {
		t[i] = i >= 0x20 && i != '"' && i != '\\' && i != 0xED
	}
	return
}()

// knownKeys are the object keys of cassettes and transcripts: a key
// found here is not allocated again for every object that has it.
var knownKeys = func() map[string]string {
	m := map[string]string{}
	for _, k := range strings.Fields(`id index type timestamp payload prevHash hash version createdAt steps
		parentId forkedFromStepId messages tools systemPrompt model params role content text toolCallId
		toolName toolInput result error name description inputSchema calls stop event status reason
		message exitCode inFlight maxSteps properties required items enum thinking signature input
		tool_use_id is_error uuid parentUuid sessionId timestamp isSidechain userType cwd version gitBranch
		requestId usage input_tokens output_tokens cache_creation_input_tokens cache_read_input_tokens
		stop_reason stop_sequence file_path command pattern path old_string new_string`) {
		m[k] = k
	}
	return m
}()

// key reads an object key, sharing the common ones.
func (p *parser) key() (string, error) {
	d := p.data
	i := p.pos + 1
	for i < len(d) && plainByte[d[i]] {
		i++
	}
	if i < len(d) && d[i] == '"' {
		if k, ok := knownKeys[string(d[p.pos+1:i])]; ok {
			p.pos = i + 1
			return k, nil
		}
	}
	k, _, _, err := p.str()
	return k, err
}

// rawByte marks the bytes a string literal holds as themselves: all but
// '"', '\\' and the controls (which JSON forbids raw).
var rawByte = func() (t [256]bool) {
	for i := range t {
		t[i] = i >= 0x20 && i != '"' && i != '\\'
	}
	return
}()

// str reads a string literal at pos. plain reports that the decoded text
// needs no escaping on output; otherwise esc, when not nil, is its
// escaped text, because the literal was already written as
// JSON.stringify writes it (the usual case: Claude Code and Blackbox
// write JSON with JavaScript), so hashing needs no re-escaping.
func (p *parser) str() (s string, plain bool, esc []byte, err error) {
	d := p.data
	i := p.pos + 1
	start := i
	for i < len(d) && plainByte[d[i]] {
		i++
	}
	if i < len(d) && d[i] == '"' {
		p.pos = i + 1
		return string(d[start:i]), true, nil, nil
	}
	// The slow path: escapes, a 0xED lead byte, or an error. Find the end
	// first, so that the decoded text (never longer than the literal) is
	// built in one allocation that becomes the string without a copy.
	end := i
	for {
		q := bytes.IndexByte(d[end:], '"')
		if q < 0 {
			end = len(d)
			break
		}
		end += q
		n := 0 // backslashes right before the quote: an odd count escapes it
		for k := end - 1; k >= i && d[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			break
		}
		end++
	}
	var buf []byte
	if end-start > 4096 {
		buf = make([]byte, 0, min(end, len(d))-start)
	} else {
		buf = p.buf[:0]
	}
	canonical := true
	i = start
	for {
		j := i
		for j < len(d) && rawByte[d[j]] {
			j++
		}
		buf = append(buf, d[i:j]...)
		i = j
		if i >= len(d) {
			p.pos = i
			return "", false, nil, p.errorf("unterminated string")
		}
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			var s string
			if cap(buf) > 4096 {
				s = unsafe.String(unsafe.SliceData(buf), len(buf)) // buf is this string's own
			} else {
				p.buf = buf
				s = string(buf)
			}
			plain := isPlain(s)
			if canonical && !plain {
				esc = append([]byte(nil), d[start:i]...)
			}
			return s, plain, esc, nil
		case c < 0x20:
			p.pos = i
			return "", false, nil, p.errorf("control character 0x%02x in a string", c)
		}
		// c is a backslash.
		if i+1 >= len(d) {
			p.pos = i + 1
			return "", false, nil, p.errorf("unterminated string")
		}
		e := d[i+1]
		i += 2
		if b, ok := jsonscan.SimpleEscape(e); ok {
			buf = append(buf, b)
			canonical = canonical && e != '/' // JSON.stringify writes a bare /
			continue
		}
		switch e {
		case 'u':
			u, ok := hex4(d, i)
			if !ok {
				p.pos = i
				return "", false, nil, p.errorf("bad \\u escape")
			}
			lower := isLowerHex(d[i : i+4])
			i += 4
			if u >= 0xD800 && u < 0xDC00 && i+6 <= len(d) && d[i] == '\\' && d[i+1] == 'u' {
				if lo, ok := hex4(d, i+2); ok && lo >= 0xDC00 && lo < 0xE000 {
					buf = utf8.AppendRune(buf, rune(0x10000+(u-0xD800)<<10+(lo-0xDC00)))
					i += 6
					canonical = false // a pair is written raw
					continue
				}
			}
			// JSON.stringify writes \u only for controls without a short
			// form and for lone surrogates, in lowercase.
			short := u == '\b' || u == '\f' || u == '\n' || u == '\r' || u == '\t'
			if !lower || short || !(u < 0x20 || (u >= 0xD800 && u < 0xE000)) {
				canonical = false
			}
			buf = appendWTF8(buf, u)
		default:
			p.pos = i - 1
			return "", false, nil, p.errorf("bad escape in a string")
		}
	}
}

func isLowerHex(b []byte) bool {
	for _, c := range b {
		if c >= 'A' && c <= 'F' {
			return false
		}
	}
	return true
}

func hex4(d []byte, i int) (uint32, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var u uint32
	for _, c := range d[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			u = u<<4 | uint32(c-'0')
		case c >= 'a' && c <= 'f':
			u = u<<4 | uint32(c-'a'+10)
		case c >= 'A' && c <= 'F':
			u = u<<4 | uint32(c-'A'+10)
		default:
			return 0, false
		}
	}
	return u, true
}

// appendWTF8 appends code unit or code point u, writing a surrogate as
// its three-byte generalized UTF-8 form.
func appendWTF8(b []byte, u uint32) []byte {
	if u >= 0xD800 && u < 0xE000 {
		return append(b, 0xED, byte(0x80|(u>>6)&0x3F), byte(0x80|u&0x3F))
	}
	return utf8.AppendRune(b, rune(u))
}

// isPlain reports whether s can be written between quotes unchanged.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if !plainByte[s[i]] {
			return false
		}
	}
	return utf8.ValidString(s)
}

// repairUTF8 replaces each maximal ill-formed subsequence with U+FFFD,
// as Node (the WHATWG decoder) does when it reads a file as UTF-8.
func repairUTF8(b []byte) []byte {
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 {
			out = append(out, c)
			i++
			continue
		}
		if r, n := utf8.DecodeRune(b[i:]); r != utf8.RuneError || n > 1 {
			out = append(out, b[i:i+n]...)
			i += n
			continue
		}
		// Ill-formed: skip the lead byte and the continuation bytes that
		// would still be valid after it.
		need, lo, hi := 0, byte(0x80), byte(0xBF)
		switch {
		case c >= 0xC2 && c <= 0xDF:
			need = 1
		case c == 0xE0:
			need, lo = 2, 0xA0
		case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
			need = 2
		case c == 0xED:
			need, hi = 2, 0x9F
		case c == 0xF0:
			need, lo = 3, 0x90
		case c >= 0xF1 && c <= 0xF3:
			need = 3
		case c == 0xF4:
			need, hi = 3, 0x8F
		}
		i++
		for k := 0; k < need && i < len(b); k++ {
			if b[i] < lo || b[i] > hi {
				break
			}
			lo, hi = 0x80, 0xBF
			i++
		}
		out = append(out, "\uFFFD"...)
	}
	return out
}
