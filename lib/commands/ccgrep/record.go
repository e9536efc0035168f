package ccgrep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ccpipe/ccpipe/lib/ndjson"
)

// setKey returns the JSON object obj with key set to value: replaced in
// place when obj has it (cc-grep --matches | cc-grep --matches), else
// appended; a second copy of key is dropped, since a jq reader would take
// the last one. Every other member keeps its bytes and its place, its key
// spelled as it came, and value is written as ndjson writes records (<, >
// and & left literal).
func setKey(obj []byte, key string, value any) ([]byte, error) {
	val, err := ndjson.Marshal(value)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("record is not a JSON object")
	}
	var out bytes.Buffer
	out.WriteByte('{')
	member := func(k, v []byte) {
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		out.Write(k)
		out.WriteByte(':')
		out.Write(v)
	}
	set := false
	for dec.More() {
		from := dec.InputOffset()
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("record: %w", err)
		}
		// The key's own bytes: what the decoder went past, less the comma
		// and blanks before it.
		rawKey := bytes.TrimLeft(obj[from:dec.InputOffset()], ", \t\r\n")
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("record: %w", err)
		}
		if k, _ := t.(string); k == key {
			if !set {
				member(rawKey, val)
				set = true
			}
			continue
		}
		member(rawKey, raw)
	}
	if !set {
		kb, err := ndjson.Marshal(key)
		if err != nil {
			return nil, err
		}
		member(kb, val)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}
