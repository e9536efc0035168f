package transcript

import (
	"errors"
	"fmt"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
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

// ErrSyntax is wrapped by Scan's errors.
var ErrSyntax = jsonscan.ErrSyntax

// Scan checks that line is one well-formed JSON object (RFC 8259 grammar;
// UTF-8 is not checked, as encoding/json does not) and fills h with its
// top-level string fields. It is several times faster than a decode:
// string bodies, most of a transcript's bytes, are skipped eight bytes at
// a time.
func Scan(line []byte, h *Header) error {
	*h = Header{}
	c := jsonscan.New(line)
	if c.Peek() != '{' {
		if c.Pos() == len(line) {
			return fmt.Errorf("%w: empty line", ErrSyntax)
		}
		return ErrNotObject
	}
	if err := c.Enter(); err != nil {
		return err
	}
	for {
		k, esc, ok, err := c.Member()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		var dst *[]byte
		if esc {
			dst = h.field([]byte(jsonscan.Key(k, esc)))
		} else {
			dst = h.field(k)
		}
		if dst != nil && c.Peek() == '"' {
			v, err := c.String()
			if err != nil {
				return err
			}
			*dst = v
		} else if err := c.Skip(); err != nil {
			return err
		}
	}
	return c.End()
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

// eachMember checks that line is one well-formed JSON object, as Scan
// does, and calls fn for each top-level member: its key (the raw body,
// escaped when esc) and the member's bytes from the key's opening quote to
// the end of its value.
func eachMember(line []byte, fn func(key []byte, esc bool, member []byte)) error {
	err := jsonscan.Members(line, func(m *jsonscan.Member) error {
		fn(m.Key, m.Esc, m.Bytes)
		return nil
	})
	if errors.Is(err, jsonscan.ErrNotObject) {
		return ErrNotObject
	}
	return err
}
