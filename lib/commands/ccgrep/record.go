package ccgrep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// setKey returns the JSON object obj with key set to value: replaced in
// place when obj has it (cc-grep --matches | cc-grep --matches), else
// appended. Every other member keeps its bytes and its place.
func setKey(obj []byte, key string, value any) ([]byte, error) {
	val, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("record is not a JSON object")
	}
	var out bytes.Buffer
	out.WriteByte('{')
	set := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("record: %w", err)
		}
		k, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("record: %w", err)
		}
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		out.Write(kb)
		out.WriteByte(':')
		if k == key && !set {
			out.Write(val)
			set = true
			continue
		}
		out.Write(raw)
	}
	if !set {
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		kb, _ := json.Marshal(key)
		out.Write(kb)
		out.WriteByte(':')
		out.Write(val)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}
