package cassette

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

// FromAny converts a Go value to a Value: nil, bool, string, the number
// types, json.Number, json.RawMessage (parsed), []any, map[string]any
// (keys in UTF-16 order, since a map has none of its own), []Value and
// Value. Prefer Parse on the original bytes when key order matters.
func FromAny(x any) (Value, error) {
	switch t := x.(type) {
	case nil:
		return Value{}, nil
	case Value:
		return t, nil
	case bool:
		return BoolValue(t), nil
	case string:
		return StringValue(t), nil
	case float64:
		return NumberValue(t), nil
	case float32:
		return NumberValue(float64(t)), nil
	case int:
		return IntValue(int64(t)), nil
	case int64:
		return IntValue(t), nil
	case int32:
		return IntValue(int64(t)), nil
	case uint64:
		return NumberValue(float64(t)), nil
	case json.Number:
		return Parse([]byte(t))
	case json.RawMessage:
		return Parse(t)
	case []Value:
		return ArrayValue(t...), nil
	case []any:
		items := make([]Value, len(t))
		for i, e := range t {
			v, err := FromAny(e)
			if err != nil {
				return Value{}, err
			}
			items[i] = v
		}
		return ArrayValue(items...), nil
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return keyLess(keys[i], keys[j]) })
		members := make([]Member, len(keys))
		for i, k := range keys {
			v, err := FromAny(t[k])
			if err != nil {
				return Value{}, err
			}
			members[i] = Member{k, v}
		}
		return ObjectValue(members...), nil
	}
	return Value{}, fmt.Errorf("cassette: cannot convert %T to a JSON value", x)
}

// ToAny converts v to plain Go values (nil, bool, float64, string,
// []any, map[string]any), as gojq and encoding/json use them. Member
// order is lost.
func ToAny(v Value) any {
	switch v.kind {
	case Bool:
		return v.b
	case Number:
		if math.IsInf(v.num, 0) || math.IsNaN(v.num) {
			return nil
		}
		if i, ok := v.Int(); ok {
			return int(i) // gojq prints integers without a fraction
		}
		return v.num
	case String:
		return v.str
	case Array:
		out := make([]any, len(v.arr))
		for i, e := range v.arr {
			out[i] = ToAny(e)
		}
		return out
	case Object:
		out := make(map[string]any, len(v.obj))
		for _, m := range v.obj {
			out[m.Key] = ToAny(m.Value)
		}
		return out
	}
	return nil
}

// MarshalJSON writes v as JSON.stringify does.
func (v Value) MarshalJSON() ([]byte, error) { return AppendJS(nil, v) }

// UnmarshalJSON parses data with Parse.
func (v *Value) UnmarshalJSON(data []byte) error {
	p, err := Parse(data)
	if err != nil {
		return err
	}
	*v = p
	return nil
}
