package cassette

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
)

// Version is the cassette schema version this package reads and writes.
const Version = 2

// The five step types.
const (
	ModelInput  = "model_input"
	ModelOutput = "model_output"
	ToolCall    = "tool_call"
	ToolResult  = "tool_result"
	Metadata    = "metadata"
)

// KnownType reports whether t is one of the five step types.
func KnownType(t string) bool {
	switch t {
	case ModelInput, ModelOutput, ToolCall, ToolResult, Metadata:
		return true
	}
	return false
}

// Header is a cassette's top-level fields other than steps. None of them
// is hashed.
type Header struct {
	Version          int    // Version (2)
	ID               string // run id
	CreatedAt        int64  // ms since the epoch
	ParentID         string // forks only
	ForkedFromStepID string // forks only
}

// Value returns the header as an object in Blackbox's key order.
func (h Header) Value() Value {
	m := []Member{
		{"version", IntValue(int64(h.Version))},
		{"id", StringValue(h.ID)},
		{"createdAt", IntValue(h.CreatedAt)},
	}
	if h.ParentID != "" {
		m = append(m, Member{"parentId", StringValue(h.ParentID)})
	}
	if h.ForkedFromStepID != "" {
		m = append(m, Member{"forkedFromStepId", StringValue(h.ForkedFromStepID)})
	}
	return Value{kind: Object, obj: m}
}

// Step is one step as a producer builds it. Readers hand out steps as
// Values instead, because a cassette under verification may hold any
// JSON in any field.
type Step struct {
	ID        string // "<cassette id>:<index>", not hashed
	Index     int
	Type      string
	Timestamp int64 // ms since the epoch
	Payload   Value
	PrevHash  string // "" for step 0, written as null
	Hash      string
}

// Value returns the step as an object in Blackbox's key order: id,
// index, type, timestamp, payload, prevHash, hash.
func (s Step) Value() Value {
	prev := NullValue()
	if s.PrevHash != "" {
		prev = StringValue(s.PrevHash)
	}
	return Value{kind: Object, obj: []Member{
		{"id", StringValue(s.ID)},
		{"index", IntValue(int64(s.Index))},
		{"type", StringValue(s.Type)},
		{"timestamp", IntValue(s.Timestamp)},
		{"payload", s.Payload},
		{"prevHash", prev},
		{"hash", StringValue(s.Hash)},
	}}
}

// DecodeStep reads a well-formed step object into a Step. It checks
// field types only; Verify checks the chain.
func DecodeStep(v Value) (Step, error) {
	var s Step
	if v.kind != Object {
		return s, fmt.Errorf("step is %s, not an object", v.kind.Article())
	}
	s.ID, _ = v.GetString("id")
	idx, ok1 := v.mustInt("index")
	ts, ok2 := v.mustInt("timestamp")
	typ, ok3 := v.GetString("type")
	hash, ok4 := v.GetString("hash")
	payload, ok5 := v.Get("payload")
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
		return s, fmt.Errorf("step lacks an integer index or timestamp, a string type or hash, or a payload")
	}
	s.Index, s.Timestamp, s.Type, s.Hash, s.Payload = int(idx), ts, typ, hash, payload
	if p, ok := v.Get("prevHash"); ok && p.kind == String {
		s.PrevHash = p.str
	}
	return s, nil
}

func (v Value) mustInt(key string) (int64, bool) {
	m, ok := v.Get(key)
	if !ok {
		return 0, false
	}
	return m.Int()
}

// HashStep returns the hash of a step from its five hashed fields, as
// stored (any JSON; a missing field is an error, as in Blackbox):
// lowercase hex SHA-256 of canonical({index, type, timestamp, payload,
// prevHash}). scratch, when not nil, is reused for the canonical text.
func HashStep(step Value, scratch *[]byte) (string, error) {
	if step.kind != Object {
		return "", fmt.Errorf("step is %s, not an object", step.kind)
	}
	var fields [5]Value
	for i, name := range hashedFields {
		f, ok := step.Get(name)
		if !ok {
			return "", fmt.Errorf("step has no %s field", name)
		}
		fields[i] = f
	}
	return hashFields(fields, scratch)
}

// hashedFields are the hashed step fields in canonical (sorted) order.
var hashedFields = [5]string{"index", "payload", "prevHash", "timestamp", "type"}

func hashFields(f [5]Value, scratch *[]byte) (string, error) {
	var local []byte
	if scratch == nil {
		scratch = &local
	}
	h := sha256.New()
	var order [64]int
	e := encoder{sorted: true, sink: h, order: order[:0]}
	b := append((*scratch)[:0], `{"index":`...)
	var err error
	for i, name := range hashedFields {
		if i > 0 {
			b = append(b, `,"`...)
			b = append(b, name...)
			b = append(b, `":`...)
		}
		if b, err = e.append(b, f[i], 0); err != nil {
			*scratch = b
			return "", fmt.Errorf("%s: %w", name, err)
		}
	}
	b = append(b, '}')
	h.Write(b)
	*scratch = b
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])), nil
}

// Recorder appends steps to a new chain, numbering and hashing them.
type Recorder struct {
	id      string
	n       int
	prev    string
	scratch []byte
}

// NewRecorder starts a chain for the cassette id (step ids are
// "<id>:<index>").
func NewRecorder(id string) *Recorder { return &Recorder{id: id} }

// Len is the number of steps appended.
func (r *Recorder) Len() int { return r.n }

// LastHash is the hash of the last step, "" before the first.
func (r *Recorder) LastHash() string { return r.prev }

// Append adds a step and returns it, hashed. It fails only on a payload
// that cannot be encoded (a non-finite number).
func (r *Recorder) Append(typ string, timestamp int64, payload Value) (Step, error) {
	s := Step{
		ID:        r.id + ":" + strconv.Itoa(r.n),
		Index:     r.n,
		Type:      typ,
		Timestamp: timestamp,
		Payload:   payload,
		PrevHash:  r.prev,
	}
	prev := NullValue()
	if s.PrevHash != "" {
		prev = StringValue(s.PrevHash)
	}
	h, err := hashFields([5]Value{IntValue(int64(s.Index)), payload, prev, IntValue(timestamp), StringValue(typ)}, &r.scratch)
	if err != nil {
		return Step{}, fmt.Errorf("step %d: %w", s.Index, err)
	}
	s.Hash = h
	r.n++
	r.prev = h
	return s, nil
}

// Copy appends a step taken verbatim from another chain (a fork's shared
// prefix): index, timestamp, payload, prevHash and hash are kept, the id
// becomes this cassette's. The step must continue this chain.
func (r *Recorder) Copy(s Step) (Step, error) {
	if s.Index != r.n || s.PrevHash != r.prev {
		return Step{}, fmt.Errorf("step %d does not continue the chain at %d", s.Index, r.n)
	}
	s.ID = r.id + ":" + strconv.Itoa(r.n)
	r.n++
	r.prev = s.Hash
	return s, nil
}
