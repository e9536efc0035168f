package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// RawField is one top-level field of a payload, as sent.
type RawField struct {
	Name  string
	Value json.RawMessage
}

// RawObject is a JSON object with its field order kept.
type RawObject []RawField

// Get returns the value of the named field (the last one when a name is
// repeated, as JSON.parse does), or nil.
func (o RawObject) Get(name string) json.RawMessage {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].Name == name {
			return o[i].Value
		}
	}
	return nil
}

// ErrNotPayload is wrapped by Parse's error when the input cannot be a
// hook payload at all (not a JSON object, or no hook_event_name).
var ErrNotPayload = errors.New("not a hook payload")

// Parse reads one payload. It fails only when data is not a JSON object
// or has no string hook_event_name; anything else (unknown events, unknown
// fields, fields of the wrong type) is kept and reported on the event's
// Base.
func Parse(data []byte) (Event, error) { return ParseOwned(bytes.Clone(data)) }

// ParseOwned is Parse for a caller that hands data over: the event's raw
// values (Raw, and fields such as tool_response) are slices of data, not
// copies, so data must not change after. cc-redact --hook parses a
// payload of hundreds of MB this way, holding it once.
func ParseOwned(data []byte) (Event, error) {
	obj, err := parseObject(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotPayload, err)
	}
	var name string
	nameRaw := obj.Get("hook_event_name")
	if nameRaw == nil {
		return nil, fmt.Errorf("%w: no hook_event_name", ErrNotPayload)
	}
	if err := json.Unmarshal(nameRaw, &name); err != nil || name == "" {
		return nil, fmt.Errorf("%w: hook_event_name is not a string", ErrNotPayload)
	}
	var ev Event = &UnknownEvent{}
	if mk, ok := newEvent[name]; ok {
		ev = mk()
	}
	b := ev.Common()
	b.Raw = obj
	b.TypeMismatches, b.UnknownFields = decodeFields(reflect.ValueOf(ev).Elem(), obj, "")
	b.HookEventName = name
	return ev, nil
}

// parseObject splits a JSON object into its fields, in order, without
// decoding the values. The values are slices of data.
func parseObject(data []byte) (RawObject, error) {
	var obj RawObject
	err := jsonscan.Members(data, func(m *jsonscan.Member) error {
		obj = append(obj, RawField{Name: m.Name(), Value: m.Value})
		return nil
	})
	if errors.Is(err, jsonscan.ErrNotObject) {
		// Still say when it is not JSON at all.
		c := jsonscan.New(data)
		if err := c.Skip(); err != nil {
			return nil, err
		}
		return nil, err
	}
	return obj, err
}

// fieldTables caches, per struct type, the JSON name of each modelled
// field and its index path (promoted fields of embedded structs included).
var fieldTables sync.Map // reflect.Type -> map[string][]int

func fieldTable(t reflect.Type) map[string][]int {
	if m, ok := fieldTables.Load(t); ok {
		return m.(map[string][]int)
	}
	m := map[string][]int{}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		m[name] = f.Index
	}
	fieldTables.Store(t, m)
	return m
}

// decodeFields is the one tolerant decoder of lib/hooks: it fills the
// struct v from obj field by field. A value of the wrong JSON type leaves
// its field empty and is named in mismatches (its dotted path under
// prefix), except that an object given for a struct field is read the
// same way, field by field, so one bad member costs only itself (its
// siblings are kept and it alone is named). A name v does not model is
// named in unknown (at the top level; a nested struct's are ignored, as a
// whole decode ignores them).
func decodeFields(v reflect.Value, obj RawObject, prefix string) (mismatches, unknown []string) {
	table := fieldTable(v.Type())
	for _, f := range obj {
		idx, ok := table[f.Name]
		if !ok {
			unknown = append(unknown, prefix+f.Name)
			continue
		}
		fv := v.FieldByIndex(idx)
		if fv.Type() == rawMessageType {
			// Passed on as sent (jsonscan has checked it): a slice of the
			// payload, not a copy, and no second scan of a large output.
			fv.SetBytes(f.Value)
			continue
		}
		err := json.Unmarshal(f.Value, fv.Addr().Interface())
		if err == nil {
			continue
		}
		fv.SetZero()
		path := prefix + f.Name
		if bad, ok := salvage(fv, f.Value, path+"."); ok {
			mismatches = append(mismatches, bad...)
			continue
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" && te.Field != f.Name {
			path += "." + strings.TrimPrefix(te.Field, f.Name+".")
		}
		mismatches = append(mismatches, path)
	}
	return mismatches, unknown
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// salvage reads raw, an object, into fv, a struct field (or a pointer to
// one) whose whole decode failed, with decodeFields; false (fv left
// empty) when fv is not a plain struct, raw not an object, or no member
// is to blame.
func salvage(fv reflect.Value, raw json.RawMessage, prefix string) ([]string, bool) {
	st := fv.Type()
	ptr := st.Kind() == reflect.Pointer
	if ptr {
		st = st.Elem()
	}
	if st.Kind() != reflect.Struct || reflect.PointerTo(st).Implements(unmarshaler) {
		return nil, false
	}
	obj, err := parseObject(raw)
	if err != nil {
		return nil, false
	}
	nv := reflect.New(st)
	bad, _ := decodeFields(nv.Elem(), obj, prefix)
	if len(bad) == 0 {
		return nil, false
	}
	if ptr {
		fv.Set(nv)
	} else {
		fv.Set(nv.Elem())
	}
	return bad, true
}

// Record is the normalised NDJSON record of a parsed payload: "event"
// first, then every field in the order it was sent (hook_event_name
// dropped, a field of the wrong type as null), then "unknown_fields" and
// "type_mismatches" (both always arrays). FileChanged's own "event" field
// (change, add, unlink) is renamed "file_event".
func Record(ev Event) []byte {
	b := ev.Common()
	var buf bytes.Buffer
	buf.WriteString(`{"event":`)
	writeJSON(&buf, ev.EventName())
	bad := map[string]bool{}
	for _, m := range b.TypeMismatches {
		name, _, _ := strings.Cut(m, ".")
		bad[name] = true
	}
	seen := map[string]int{}
	for i, f := range b.Raw {
		seen[f.Name] = i
	}
	for i, f := range b.Raw {
		if f.Name == "hook_event_name" || f.Name == "unknown_fields" ||
			f.Name == "type_mismatches" || seen[f.Name] != i {
			continue
		}
		name := f.Name
		if name == "event" {
			// FileChanged's own "event" (change, add, unlink) would clash
			// with the record's event name.
			name = "file_event"
		}
		buf.WriteByte(',')
		writeJSON(&buf, name)
		buf.WriteByte(':')
		if bad[f.Name] {
			buf.WriteString("null")
			continue
		}
		if err := json.Compact(&buf, f.Value); err != nil {
			buf.WriteString("null")
		}
	}
	buf.WriteString(`,"unknown_fields":`)
	writeJSON(&buf, nonNil(b.UnknownFields))
	buf.WriteString(`,"type_mismatches":`)
	writeJSON(&buf, nonNil(b.TypeMismatches))
	buf.WriteByte('}')
	return buf.Bytes()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// writeJSON encodes v compactly with <, > and & left literal.
func writeJSON(buf *bytes.Buffer, v any) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // strings and string slices cannot fail
	buf.Truncate(buf.Len() - 1)
}
