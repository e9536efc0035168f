package usage

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// The one line reader of billed records: the fields usage needs are read
// out of a transcript line with the strict scanner (lib/jsonscan), without
// decoding it. cc-extract usage's fast path (Scanner) and cc-statusline's ledgers read
// with it.

// Line is what the one line reader (ParseLine) reads of a transcript
// record: the fields of an assistant record that bill it. The slices
// point into the line (or, for a value written with escapes, into a
// fresh copy).
type Line struct {
	Type, UUID, Timestamp, SessionID, AgentID    []byte
	RequestID, RequestRef, RequestSessionID, Cwd []byte
	MessageID, Model, RequestedModel             []byte
	// Usage is the raw message.usage object (nil when it is not one),
	// Tokens its counts; HasUsage says it is an object.
	Usage     []byte
	Tokens    Tokens
	HasUsage  bool
	APIError  bool // isApiErrorMessage
	Sidechain bool // isSidechain
	// Bad names the fields of an unexpected type (a count that is not an
	// integer in int64's range, nor null): they read as empty, as a decode
	// of the record reads them.
	Bad []string
}

// ErrMalformed is wrapped by ParseLine's errors: the line is not the JSON
// object it claims to be.
var ErrMalformed = errors.New("malformed record")

// walker reads a record's fields with the strict scanner: it accepts the
// lines a decode accepts, and reads the values a decode reads.
type walker struct {
	c   jsonscan.Cursor
	bad *[]string
}

func walkErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrMalformed, err)
}

// object walks the object at the cursor, calling field for each member;
// a value of another type is skipped, as a decode leaves it unset.
func (p *walker) object(field func(key []byte) error) error {
	if p.c.Peek() != '{' {
		return p.skip()
	}
	if err := p.c.Enter(); err != nil {
		return err
	}
	for {
		k, esc, ok, err := p.c.Member()
		if err != nil || !ok {
			return err
		}
		if esc {
			k = []byte(jsonscan.Key(k, esc))
		}
		if err := field(k); err != nil {
			return err
		}
	}
}

// str reads a string value into *dst; a value of another type is skipped.
func (p *walker) str(dst *[]byte) error {
	if p.c.Peek() != '"' {
		return p.skip()
	}
	v, err := p.c.String()
	*dst = v
	return err
}

// num reads a count into *dst as encoding/json reads an int64: an integer
// literal in range. Anything else but null reads 0 and names the field.
func (p *walker) num(dst *int64, path string) error {
	*dst = 0
	switch p.c.Peek() {
	case 'n':
		_, err := p.c.Null()
		return err
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		lit, err := p.c.Number()
		if err != nil {
			return err
		}
		if n, err := strconv.ParseInt(string(lit), 10, 64); err == nil {
			*dst = n
			return nil
		}
	default:
		if err := p.skip(); err != nil {
			return err
		}
	}
	*p.bad = append(*p.bad, path)
	return nil
}

func (p *walker) boolean(dst *bool) error {
	switch p.c.Peek() {
	case 't', 'f':
		v, err := p.c.Bool()
		*dst = v
		return err
	}
	return p.skip()
}

func (p *walker) skip() error { return p.c.Skip() }

// ParseLine reads the fields of one transcript line that bill it, without
// decoding the rest: string bodies (most of a transcript's bytes) are
// skipped with a byte search. It accepts the lines a decode accepts and
// reads the values a decode reads.
func ParseLine(b []byte, l *Line) error {
	bad := l.Bad[:0]
	*l = Line{Bad: bad}
	p := walker{c: jsonscan.New(b), bad: &l.Bad}
	if p.c.Peek() != '{' {
		return fmt.Errorf("%w: expected an object", ErrMalformed)
	}
	err := p.object(func(k []byte) error {
		switch string(k) {
		case "type":
			return p.str(&l.Type)
		case "uuid":
			return p.str(&l.UUID)
		case "timestamp":
			return p.str(&l.Timestamp)
		case "sessionId":
			return p.str(&l.SessionID)
		case "agentId":
			return p.str(&l.AgentID)
		case "requestId":
			return p.str(&l.RequestID)
		case "requestRef":
			return p.str(&l.RequestRef)
		case "requestSessionId":
			return p.str(&l.RequestSessionID)
		case "cwd":
			return p.str(&l.Cwd)
		case "isApiErrorMessage":
			return p.boolean(&l.APIError)
		case "isSidechain":
			return p.boolean(&l.Sidechain)
		case "requestedModel":
			return p.str(&l.RequestedModel)
		case "message":
			return p.message(l)
		}
		return p.skip()
	})
	if err == nil {
		err = p.c.End()
	}
	return walkErr(err)
}

func (p *walker) message(l *Line) error {
	return p.object(func(k []byte) error {
		switch string(k) {
		case "id":
			return p.str(&l.MessageID)
		case "model":
			return p.str(&l.Model)
		case "usage":
			switch p.c.Peek() {
			case '{':
				l.HasUsage = true
			case 'n': // null: no usage
			default:
				// Another type: named, as the decode path names it.
				l.Bad = append(l.Bad, "message.usage")
			}
			start := p.c.Pos()
			err := p.usage(l)
			if l.HasUsage && err == nil {
				l.Usage = p.c.Since(start)
			}
			return err
		}
		return p.skip()
	})
}

// usage reads message.usage; a field added here is read by the fast path
// as the decode reads it.
func (p *walker) usage(l *Line) error {
	return p.object(func(k []byte) error {
		switch string(k) {
		case "input_tokens":
			return p.num(&l.Tokens.InputTokens, "message.usage.input_tokens")
		case "output_tokens":
			return p.num(&l.Tokens.OutputTokens, "message.usage.output_tokens")
		case "cache_read_input_tokens":
			return p.num(&l.Tokens.CacheReadInputTokens, "message.usage.cache_read_input_tokens")
		case "cache_creation_input_tokens":
			return p.num(&l.Tokens.CacheCreationInputTokens, "message.usage.cache_creation_input_tokens")
		case "cache_creation":
			return p.object(func(k []byte) error {
				switch string(k) {
				case "ephemeral_5m_input_tokens":
					return p.count(&l.Tokens.CacheCreation5m)
				case "ephemeral_1h_input_tokens":
					return p.count(&l.Tokens.CacheCreation1h)
				}
				return p.skip()
			})
		}
		return p.skip()
	})
}

// count reads a count of the cache write's split into *dst as num does,
// but anything else reads 0 unnamed: the split is an addition to the
// counts a decode reads, which names no field of it.
func (p *walker) count(dst *int64) error {
	bad := *p.bad
	err := p.num(dst, "")
	*p.bad = bad
	return err
}
