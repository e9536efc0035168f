package ccgrep

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
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
	err = jsonscan.Members(obj, func(m *jsonscan.Member) error {
		if m.Name() == key {
			if !set {
				member(m.RawKey(), val)
				set = true
			}
			return nil
		}
		member(m.RawKey(), m.Value)
		return nil
	})
	if errors.Is(err, jsonscan.ErrNotObject) {
		return nil, errors.New("record is not a JSON object")
	}
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
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
