package pricing

import (
	"bytes"
	"fmt"
	"math"
	"strconv"

	"gopkg.in/yaml.v3"
)

// overrideFields are the keys of an override row, all required.
var overrideFields = []string{"name", "inputPerMtok", "outputPerMtok", "cacheReadPerMtok", "cacheWritePerMtok"}

// ParseOverrides reads a price file: a JSON or YAML list of rows in Claude
// Code's override shape, or an object whose "overrides" key holds that
// list. Errors name the file, the line and the field.
func ParseOverrides(file string, data []byte) ([]OverrideRow, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	// yaml.Unmarshal reads the first document only: a second one would be
	// ignored without a word.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first, second yaml.Node
	if dec.Decode(&first) == nil && dec.Decode(&second) == nil {
		return nil, fmt.Errorf("%s:%d: a second YAML document (after ---); put every row in one list", file, second.Line)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s:1: no price rows", file)
	}
	list := doc.Content[0]
	if list.Kind == yaml.MappingNode {
		var found *yaml.Node
		for i := 0; i+1 < len(list.Content); i += 2 {
			if k := list.Content[i]; k.Value == "overrides" {
				found = list.Content[i+1]
			} else {
				return nil, fmt.Errorf("%s:%d: unknown key %q (want a list of rows, or overrides: [rows])", file, k.Line, k.Value)
			}
		}
		if found == nil {
			return nil, fmt.Errorf("%s:%d: no overrides key", file, list.Line)
		}
		list = found
	}
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: want a list of price rows", file, list.Line)
	}
	rows := make([]OverrideRow, 0, len(list.Content))
	lines := map[string]int{}
	for _, n := range list.Content {
		r, err := overrideRow(file, n)
		if err != nil {
			return nil, err
		}
		if l, dup := lines[r.Name]; dup {
			return nil, fmt.Errorf("%s:%d: a second row for %s (the first is on line %d)", file, n.Line, r.Name, l)
		}
		lines[r.Name] = n.Line
		rows = append(rows, r)
	}
	return rows, nil
}

func overrideRow(file string, n *yaml.Node) (OverrideRow, error) {
	var r OverrideRow
	if n.Kind != yaml.MappingNode {
		return r, fmt.Errorf("%s:%d: a price row must be an object with %v", file, n.Line, overrideFields)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			return r, fmt.Errorf("%s:%d: field %s given twice", file, k.Line, k.Value)
		}
		seen[k.Value] = true
		if k.Value == "name" {
			if v.Kind != yaml.ScalarNode || v.Tag != "!!str" || v.Value == "" {
				return r, fmt.Errorf("%s:%d: field name: want a model id string", file, v.Line)
			}
			r.Name = v.Value
			continue
		}
		var dst *float64
		switch k.Value {
		case "inputPerMtok":
			dst = &r.InputPerMtok
		case "outputPerMtok":
			dst = &r.OutputPerMtok
		case "cacheReadPerMtok":
			dst = &r.CacheReadPerMtok
		case "cacheWritePerMtok":
			dst = &r.CacheWritePerMtok
		default:
			return r, fmt.Errorf("%s:%d: unknown field %q (want %v)", file, k.Line, k.Value, overrideFields)
		}
		f, err := strconv.ParseFloat(v.Value, 64)
		if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!float") || err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return r, fmt.Errorf("%s:%d: field %s: %q is not a number", file, v.Line, k.Value, v.Value)
		}
		if f < 0 {
			return r, fmt.Errorf("%s:%d: field %s: %v is negative", file, v.Line, k.Value, f)
		}
		*dst = f
	}
	for _, f := range overrideFields {
		if !seen[f] {
			return r, fmt.Errorf("%s:%d: field %s is missing", file, n.Line, f)
		}
	}
	return r, nil
}
