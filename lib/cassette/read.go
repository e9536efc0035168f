package cassette

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/ccpipe/ccpipe/lib/ndjson"
)

// ErrEmpty is Next's error for an input without a cassette (nothing but
// blank lines): an empty pipe is no input, an empty file is a mistake.
var ErrEmpty = errors.New("no cassette in the input (it is empty)")

// Record is one unit a Reader hands out: a header, which starts a
// cassette, or a step of the current cassette.
type Record struct {
	Header bool  // Value is a header (top-level fields without steps)
	Value  Value // the header or the step, as parsed
	Line   int   // the line it came from (1-based; in the single-JSON form the line of the document's start)
	// Raw, set only by a Lazy Reader, is a step line lexed but not
	// parsed (Value is then zero); valid until the next Next.
	Raw *RawStep
}

// Reader reads cassettes in either form, told apart by content, from one
// stream: NDJSON (a header line, then one step per line; several
// cassettes may follow each other), or a JSON document holding a whole
// cassette (Blackbox's file, pretty-printed or on one line; one-line
// documents may also be mixed into NDJSON). Memory is bounded by the
// longest line, except for a pretty-printed document, which is read
// whole.
type Reader struct {
	// Lazy hands out step lines as Raw records, for Verifier.StepRaw,
	// instead of parsing them; headers and lines the lexer declines are
	// parsed as usual.
	Lazy bool

	raw     RawStep
	lr      *ndjson.Reader
	pending []Record // steps of a whole-cassette line, handed out in turn
	started bool     // a header has been seen
	lastHdr bool     // the previous record was a header
	lastID  string   // id of the current cassette's header
	done    bool
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader {
	return &Reader{lr: ndjson.NewReaderSize(r, 256<<10)}
}

// Next returns the next record, or io.EOF at the end. Errors name the
// line and never quote cassette content.
func (r *Reader) Next() (Record, error) {
	if len(r.pending) > 0 {
		rec := r.pending[0]
		r.pending = r.pending[1:]
		return rec, nil
	}
	if r.done {
		return Record{}, io.EOF
	}
	var line []byte
	var err error
	for {
		line, err = r.lr.Next()
		if err == io.EOF {
			r.done = true
			if !r.started {
				return Record{}, ErrEmpty
			}
			return Record{}, io.EOF
		}
		if err != nil {
			r.done = true
			return Record{}, fmt.Errorf("line %d: %w", r.lr.Line()+1, err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			break
		}
	}
	n := r.lr.Line()
	if r.Lazy && r.started && r.raw.lex(line) && r.raw.member(0, "index") >= 0 && r.raw.member(0, "steps") == -1 {
		r.lastHdr = false
		return Record{Raw: &r.raw, Line: n}, nil
	}
	v, perr := Parse(line)
	if perr != nil {
		if !r.started && n == 1 && bytes.HasPrefix(bytes.TrimLeft(line, " \t\r\n"), []byte("{")) {
			return r.wholeDocument(line)
		}
		r.done = true
		if r.lr.Partial() {
			return Record{}, fmt.Errorf("line %d: truncated: the last line is incomplete (%v)", n, perr)
		}
		return Record{}, fmt.Errorf("line %d: not valid JSON: %v", n, perr)
	}
	if v.kind != Object {
		r.done = true
		return Record{}, fmt.Errorf("line %d: %s, not a JSON object", n, v.kind.Article())
	}
	if v.Has("steps") {
		return r.whole(v, n)
	}
	if isHeader(v) {
		id, _ := v.GetString("id")
		if r.lastHdr && id == r.lastID {
			r.done = true
			return Record{}, fmt.Errorf("line %d: duplicate header (the cassette above has no steps and the same id)", n)
		}
		r.started, r.lastHdr, r.lastID = true, true, id
		return Record{Header: true, Value: v, Line: n}, nil
	}
	if !r.started {
		r.done = true
		return Record{}, fmt.Errorf("line %d: missing header: a cassette starts with a line like {\"version\":2,\"id\":...,\"createdAt\":...}", n)
	}
	r.lastHdr = false
	return Record{Value: v, Line: n}, nil
}

// isHeader tells a header line from a step line.
func isHeader(v Value) bool { return v.Has("version") && !v.Has("index") }

// wholeDocument reads the rest of the input as one JSON document that
// began with first.
func (r *Reader) wholeDocument(first []byte) (Record, error) {
	r.done = true
	var buf bytes.Buffer
	buf.Write(first)
	for {
		line, err := r.lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Record{}, fmt.Errorf("line %d: %w", r.lr.Line()+1, err)
		}
		buf.WriteByte('\n')
		buf.Write(line)
	}
	v, err := Parse(buf.Bytes())
	if err != nil {
		return Record{}, fmt.Errorf("not valid JSON: %v", err)
	}
	if v.kind != Object {
		return Record{}, fmt.Errorf("%s, not a JSON object", v.kind.Article())
	}
	if !v.Has("steps") {
		return Record{}, errors.New("a JSON object without steps: not a cassette")
	}
	return r.whole(v, 1)
}

// whole splits a whole-cassette object into its header and steps.
func (r *Reader) whole(v Value, line int) (Record, error) {
	steps, _ := v.Get("steps")
	if steps.kind != Array {
		r.done = true
		return Record{}, fmt.Errorf("line %d: steps is %s, not an array", line, steps.kind.Article())
	}
	for _, s := range steps.arr {
		r.pending = append(r.pending, Record{Value: s, Line: line})
	}
	// A whole document cannot be a duplicated header.
	r.started, r.lastHdr = true, false
	return Record{Header: true, Value: v.Without("steps"), Line: line}, nil
}

// Cassette is a whole cassette in memory.
type Cassette struct {
	Header Value   // top-level fields without steps
	Steps  []Value // as read
}

// ReadAll reads every cassette of r.
func ReadAll(r io.Reader) ([]Cassette, error) {
	var out []Cassette
	rd := NewReader(r)
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if rec.Header {
			out = append(out, Cassette{Header: rec.Value})
			continue
		}
		c := &out[len(out)-1]
		c.Steps = append(c.Steps, rec.Value)
	}
}

// ID returns the header's id ("" when absent or not a string).
func (c *Cassette) ID() string {
	id, _ := c.Header.GetString("id")
	return id
}

// Value returns the cassette as Blackbox's single object: header members
// in order with steps placed after version, id and createdAt.
func (c *Cassette) Value() Value {
	steps := Value{kind: Array, arr: c.Steps}
	if steps.arr == nil {
		steps.arr = []Value{}
	}
	m := make([]Member, 0, len(c.Header.obj)+1)
	placed := false
	for _, h := range c.Header.obj {
		if !placed && h.Key != "version" && h.Key != "id" && h.Key != "createdAt" {
			m = append(m, Member{"steps", steps})
			placed = true
		}
		m = append(m, h)
	}
	if !placed {
		m = append(m, Member{"steps", steps})
	}
	return ObjectValue(m...)
}

// Writer writes cassettes in the NDJSON form: each value compact, as
// JSON.stringify writes it, one per line.
type Writer struct {
	bw  *bufio.Writer
	buf []byte
}

// NewWriter returns a Writer over w. Call Flush at the end.
func NewWriter(w io.Writer) *Writer { return &Writer{bw: bufio.NewWriterSize(w, 64<<10)} }

// Write writes one header or step value and a newline.
func (w *Writer) Write(v Value) error {
	var err error
	if w.buf, err = AppendJS(w.buf[:0], v); err != nil {
		return err
	}
	w.buf = append(w.buf, '\n')
	// The buffer is kept, at the size of the largest step so far: an
	// import writes the growing history again in every model_input, and
	// regrowing it for each one cost more than the encoding.
	_, err = w.bw.Write(w.buf)
	return err
}

// WriteCassette writes a header and its steps.
func (w *Writer) WriteCassette(c Cassette) error {
	if err := w.Write(c.Header); err != nil {
		return err
	}
	for _, s := range c.Steps {
		if err := w.Write(s); err != nil {
			return err
		}
	}
	return nil
}

// Flush writes out what is buffered.
func (w *Writer) Flush() error { return w.bw.Flush() }

// AppendDocument appends c in Blackbox's single-file form,
// JSON.stringify(trace, null, 2): no trailing newline.
func AppendDocument(dst []byte, c Cassette) ([]byte, error) {
	return AppendIndent(dst, c.Value())
}
