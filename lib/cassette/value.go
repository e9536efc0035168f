package cassette

import (
	"math"
	"strconv"
	"sync"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON types. The zero Value is Null.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// Article is the kind with its article, for messages: "an array", "a number".
func (k Kind) Article() string {
	if k == Array || k == Object {
		return "an " + k.String()
	}
	return "a " + k.String()
}

// Value is one JSON value as JavaScript sees it after JSON.parse: numbers
// are doubles, strings may hold lone surrogates (stored WTF-8, three
// bytes each, so they survive to the canonical text), and object members
// keep JavaScript's own-key order (array-index keys ascending, then the
// rest in insertion order; a repeated key keeps its first position and
// its last value).
//
// Values are immutable once built; share them freely.
type Value struct {
	kind  Kind
	plain bool // String: written between quotes as is, no escaping needed
	b     bool
	num   float64
	str   string
	arr   []Value
	obj   []Member
	esc   *escaped // String, not plain: its escaped text, made once
}

// escaped holds a string's JSON-escaped body (without quotes), made on
// first use and shared by every copy of the Value: an imported cassette
// writes the same history strings into many model_input steps.
type escaped struct {
	once sync.Once
	body []byte
}

func (e *escaped) get(s string) []byte {
	e.once.Do(func() { e.body = appendStringBody(nil, s) })
	return e.body
}

// stringValue builds a String Value from trusted parts.
func stringValue(s string, plain bool) Value {
	v := Value{kind: String, str: s, plain: plain}
	if !plain {
		v.esc = &escaped{}
	}
	return v
}

// Member is one key/value pair of an object.
type Member struct {
	Key   string
	Value Value
}

// NullValue returns JSON null.
func NullValue() Value { return Value{} }

// BoolValue returns true or false.
func BoolValue(b bool) Value { return Value{kind: Bool, b: b} }

// NumberValue returns a number. A NaN or infinite value can be held but
// not encoded (JSON has no spelling for it; hashing refuses it).
func NumberValue(f float64) Value { return Value{kind: Number, num: f} }

// IntValue returns an integer number.
func IntValue(i int64) Value { return Value{kind: Number, num: float64(i)} }

// StringValue returns a string. s is taken as UTF-8 (invalid bytes are
// written as U+FFFD); WTF-8 encoded surrogates are lone surrogates.
func StringValue(s string) Value { return stringValue(s, isPlain(s)) }

// ArrayValue returns an array of the items (the slice is kept, not
// copied).
func ArrayValue(items ...Value) Value {
	if items == nil {
		items = []Value{}
	}
	return Value{kind: Array, arr: items}
}

// ObjectValue returns an object of the members, put into JavaScript's
// own-key order (array-index keys first) with repeated keys merged.
func ObjectValue(members ...Member) Value {
	o := objectBuilder{}
	for _, m := range members {
		o.add(m.Key, m.Value)
	}
	return o.value()
}

// Kind reports the value's JSON type.
func (v Value) Kind() Kind { return v.kind }

// IsNull reports whether v is JSON null (also the zero Value).
func (v Value) IsNull() bool { return v.kind == Null }

// Bool returns the boolean and whether v is one.
func (v Value) Bool() (bool, bool) { return v.b, v.kind == Bool }

// Number returns the number and whether v is one.
func (v Value) Number() (float64, bool) { return v.num, v.kind == Number }

// Str returns the string and whether v is one.
func (v Value) Str() (string, bool) { return v.str, v.kind == String }

// Items returns an array's items (nil for other kinds). Do not modify.
func (v Value) Items() []Value { return v.arr }

// Members returns an object's members in order (nil for other kinds). Do
// not modify.
func (v Value) Members() []Member { return v.obj }

// Len is the number of items or members (0 for scalars).
func (v Value) Len() int { return len(v.arr) + len(v.obj) }

// Get returns an object's member value by key, and whether it exists.
func (v Value) Get(key string) (Value, bool) {
	for i := range v.obj {
		if v.obj[i].Key == key {
			return v.obj[i].Value, true
		}
	}
	return Value{}, false
}

// Has reports whether an object has the key.
func (v Value) Has(key string) bool {
	_, ok := v.Get(key)
	return ok
}

// GetString returns an object's string member, "" and false when absent
// or not a string.
func (v Value) GetString(key string) (string, bool) {
	m, ok := v.Get(key)
	if !ok || m.kind != String {
		return "", false
	}
	return m.str, true
}

// Int returns v as an int64 when it is a number holding a safe integer
// (|n| <= 2^53-1), as JavaScript's Number.isSafeInteger.
func (v Value) Int() (int64, bool) {
	if v.kind != Number || v.num != math.Trunc(v.num) || math.Abs(v.num) > maxSafe {
		return 0, false
	}
	return int64(v.num), true
}

const maxSafe = 1<<53 - 1

// With returns a copy of object v with key set to val (appended when new).
func (v Value) With(key string, val Value) Value {
	o := objectBuilder{members: append([]Member(nil), v.obj...)}
	o.add(key, val)
	return o.value()
}

// Without returns a copy of object v without key.
func (v Value) Without(key string) Value {
	out := make([]Member, 0, len(v.obj))
	for _, m := range v.obj {
		if m.Key != key {
			out = append(out, m)
		}
	}
	return Value{kind: Object, obj: out}
}

// Equal reports whether a and b have the same canonical JSON (so key
// order does not matter and -0 equals 0). Values that cannot be encoded
// are equal only to themselves structurally.
func Equal(a, b Value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case Null:
		return true
	case Bool:
		return a.b == b.b
	case Number:
		return a.num == b.num
	case String:
		return a.str == b.str
	}
	ca, err1 := AppendCanonical(nil, a)
	cb, err2 := AppendCanonical(nil, b)
	return err1 == nil && err2 == nil && string(ca) == string(cb)
}

// objectBuilder collects members in JavaScript's own-key order.
type objectBuilder struct {
	members []Member
	index   map[string]int // built once an object gets large
	nIndex  int            // how many leading members have array-index keys
}

func (o *objectBuilder) find(key string) int {
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range o.members {
		if o.members[i].Key == key {
			return i
		}
	}
	if len(o.members) >= 32 {
		o.index = make(map[string]int, len(o.members)*2)
		for i, m := range o.members {
			o.index[m.Key] = i
		}
	}
	return -1
}

func (o *objectBuilder) add(key string, val Value) {
	if i := o.find(key); i >= 0 {
		o.members[i].Value = val
		return
	}
	n, isIndex := arrayIndex(key)
	if !isIndex {
		o.members = append(o.members, Member{key, val})
		if o.index != nil {
			o.index[key] = len(o.members) - 1
		}
		return
	}
	// Array-index keys go first, ascending.
	pos := 0
	for pos < o.nIndex {
		m, _ := arrayIndex(o.members[pos].Key)
		if m > n {
			break
		}
		pos++
	}
	o.members = append(o.members, Member{})
	copy(o.members[pos+1:], o.members[pos:])
	o.members[pos] = Member{key, val}
	o.nIndex++
	if o.index != nil {
		for i := pos; i < len(o.members); i++ {
			o.index[o.members[i].Key] = i
		}
	}
}

func (o *objectBuilder) value() Value {
	if o.members == nil {
		o.members = []Member{}
	}
	return Value{kind: Object, obj: o.members}
}

// arrayIndex reports whether key is a JavaScript array index: the
// canonical decimal spelling of an integer below 2^32-1.
func arrayIndex(key string) (uint64, bool) {
	if key == "" || len(key) > 10 || (len(key) > 1 && key[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < '0' || key[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(key, 10, 64)
	if err != nil || n >= 1<<32-1 {
		return 0, false
	}
	return n, true
}
