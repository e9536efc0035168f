package transcript

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
)

// Header is the handful of top-level fields a pipe needs to route a line
// (which type, which branch, which time, which session), found by Scan
// without decoding the record. The slices point into the line (or, for a
// value written with escapes, into a fresh copy) and are valid as long as
// the line is.
type Header struct {
	Type              []byte
	UUID              []byte
	ParentUUID        []byte
	LogicalParentUUID []byte
	Timestamp         []byte
	SessionID         []byte
	AgentID           []byte
}

// maxDepth bounds nesting as encoding/json does, so a hostile line cannot
// exhaust the stack.
const maxDepth = 10000

// ErrSyntax is wrapped by Scan's errors.
var ErrSyntax = errors.New("invalid JSON")

// Scan checks that line is one well-formed JSON object (RFC 8259 grammar;
// UTF-8 is not checked, as encoding/json does not) and fills h with its
// top-level string fields. It is several times faster than a decode:
// string bodies, most of a transcript's bytes, are skipped eight bytes at
// a time.
func Scan(line []byte, h *Header) error {
	*h = Header{}
	s := scanner{b: line}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		if s.i >= len(s.b) {
			return fmt.Errorf("%w: empty line", ErrSyntax)
		}
		return ErrNotObject
	}
	if err := s.object(1, h); err != nil {
		return err
	}
	s.ws()
	if s.i != len(s.b) {
		return s.fail("data after the object")
	}
	return nil
}

type scanner struct {
	b []byte
	i int
}

func (s *scanner) fail(what string) error {
	return fmt.Errorf("%w: %s at byte %d", ErrSyntax, what, s.i)
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// object scans an object at s.b[s.i] == '{'. h is nil below the top level.
func (s *scanner) object(depth int, h *Header) error {
	if depth > maxDepth {
		return s.fail("nesting too deep")
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return nil
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return s.fail("expected a key")
		}
		ks, ke, _, err := s.str()
		if err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return s.fail("expected ':'")
		}
		s.i++
		s.ws()
		var dst *[]byte
		if h != nil {
			dst = h.field(s.b[ks:ke])
		}
		if dst != nil && s.i < len(s.b) && s.b[s.i] == '"' {
			vs, ve, esc, err := s.str()
			if err != nil {
				return err
			}
			*dst = s.b[vs:ve]
			if esc {
				var v string
				if json.Unmarshal(s.b[vs-1:ve+1], &v) == nil {
					*dst = []byte(v)
				}
			}
		} else if err := s.value(depth); err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.b) {
			return s.fail("unterminated object")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.ws()
		case '}':
			s.i++
			return nil
		default:
			return s.fail("expected ',' or '}'")
		}
	}
}

// field maps a top-level key to the Header field that keeps it.
func (h *Header) field(key []byte) *[]byte {
	switch string(key) {
	case "type":
		return &h.Type
	case "uuid":
		return &h.UUID
	case "parentUuid":
		return &h.ParentUUID
	case "logicalParentUuid":
		return &h.LogicalParentUUID
	case "timestamp":
		return &h.Timestamp
	case "sessionId":
		return &h.SessionID
	case "agentId":
		return &h.AgentID
	}
	return nil
}

func (s *scanner) value(depth int) error {
	if s.i >= len(s.b) {
		return s.fail("expected a value")
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, _, _, err := s.str()
		return err
	case c == '{':
		return s.object(depth+1, nil)
	case c == '[':
		return s.array(depth + 1)
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return s.fail("unexpected character")
}

func (s *scanner) array(depth int) error {
	if depth > maxDepth {
		return s.fail("nesting too deep")
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return nil
	}
	for {
		if err := s.value(depth); err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.b) {
			return s.fail("unterminated array")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.ws()
		case ']':
			s.i++
			return nil
		default:
			return s.fail("expected ',' or ']'")
		}
	}
}

func (s *scanner) lit(word string) error {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return s.fail("invalid literal")
	}
	s.i += len(word)
	return nil
}

func (s *scanner) number() error {
	b, i := s.b, s.i
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
		s.i = i
		return s.fail("invalid number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			s.i = i
			return s.fail("invalid number")
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
			s.i = i
			return s.fail("invalid number")
		}
	}
	s.i = i
	return nil
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special marks the bytes of x (8 bytes, little endian) that are '"',
// '\\' or a control character: the only bytes a string scan must stop at.
// Bits above the lowest mark may be spurious (borrows); the lowest is
// exact.
func special(x uint64) uint64 {
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	return ((q-ones)&^q | (bs-ones)&^bs | (x-ones*0x20)&^x) & highs
}

// str scans a string at s.b[s.i] == '"' and returns the bounds of its body
// and whether it holds escapes.
func (s *scanner) str() (start, end int, esc bool, err error) {
	b := s.b
	i := s.i + 1
	start = i
	for {
		for i+8 <= len(b) {
			if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			s.i = i
			return 0, 0, false, s.fail("unterminated string")
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return start, i, esc, nil
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				s.i = i
				return 0, 0, false, s.fail("unterminated string")
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !hex4(b[i+2:i+6]) {
					s.i = i
					return 0, 0, false, s.fail("invalid \\u escape")
				}
				i += 6
			default:
				s.i = i
				return 0, 0, false, s.fail("invalid escape")
			}
		case c < 0x20:
			s.i = i
			return 0, 0, false, s.fail("control character in string")
		default:
			i++
		}
	}
}

func hex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// eachMember checks that line is one well-formed JSON object, as Scan
// does, and calls fn for each top-level member: its key (the raw body,
// escaped when esc) and the member's bytes from the key's opening quote to
// the end of its value.
func eachMember(line []byte, fn func(key []byte, esc bool, member []byte)) error {
	s := scanner{b: line}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		if s.i >= len(s.b) {
			return fmt.Errorf("%w: empty line", ErrSyntax)
		}
		return ErrNotObject
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
	} else {
		for {
			if s.i >= len(s.b) || s.b[s.i] != '"' {
				return s.fail("expected a key")
			}
			start := s.i
			ks, ke, esc, err := s.str()
			if err != nil {
				return err
			}
			s.ws()
			if s.i >= len(s.b) || s.b[s.i] != ':' {
				return s.fail("expected ':'")
			}
			s.i++
			s.ws()
			if err := s.value(1); err != nil {
				return err
			}
			fn(s.b[ks:ke], esc, s.b[start:s.i])
			s.ws()
			if s.i >= len(s.b) {
				return s.fail("unterminated object")
			}
			if s.b[s.i] == '}' {
				s.i++
				break
			}
			if s.b[s.i] != ',' {
				return s.fail("expected ',' or '}'")
			}
			s.i++
			s.ws()
		}
	}
	s.ws()
	if s.i != len(s.b) {
		return s.fail("data after the object")
	}
	return nil
}
