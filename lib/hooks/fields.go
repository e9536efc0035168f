package hooks

import (
	_ "embed"
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ccpipe/ccpipe/lib/spell"
)

// toolSchemasJSON holds the input_schema of every tool Claude Code 2.1.328
// sends the model (deferred tools included), descriptions left out; the
// contract test TestToolSchemas checks it against the installed binary.
//
//go:embed tool-schemas-2.1.328.json
var toolSchemasJSON []byte

// jsonSchema is the part of a tool's input schema a path is checked
// against.
type jsonSchema struct {
	Type                 any                    `json:"type"`
	Properties           map[string]*jsonSchema `json:"properties"`
	AdditionalProperties any                    `json:"additionalProperties"`
	Items                *jsonSchema            `json:"items"`
}

// toolSchemas is decoded on first use: cc-hook run lints its rule file,
// so this is on the hot path, but only once per process.
var toolSchemas = sync.OnceValue(func() map[string]*jsonSchema {
	var doc struct {
		Tools map[string]*jsonSchema `json:"tools"`
	}
	if err := json.Unmarshal(toolSchemasJSON, &doc); err != nil {
		panic("hooks: the embedded tool schemas do not decode: " + err.Error())
	}
	return doc.Tools
})

// KnownTool reports whether the tool's input schema is known (a built-in
// tool of 2.1.328; not an MCP tool or one added later).
func KnownTool(name string) bool {
	_, ok := toolSchemas()[name]
	return ok
}

// Tools are the built-in tools whose input schema is known, sorted.
func Tools() []string {
	names := make([]string, 0, len(toolSchemas()))
	for n := range toolSchemas() {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// TakesToolInput reports whether the event's payload carries a tool call
// (tool_name and tool_input).
func TakesToolInput(event string) bool {
	mk, ok := newEvent[event]
	if !ok {
		return false
	}
	_, ok = mk().(interface{ Tool() (any, []string) })
	return ok
}

// Missing says that a payload can never hold a path: Field is the path up
// to the first name that is not there ("tool_input.content"), Where the
// event or tool that lacks it, Known the names that are there.
type Missing struct {
	Where string
	Field string
	Known []string
}

// CheckPath reports whether a payload of the event can hold the path (a
// list of names, "[]" for an array element): nil when it can, or when it
// cannot be told (a value Claude Code passes through, such as
// tool_response, or an event or tool this version does not know). For a
// tool event, tool names the tool whose input schema tool_input is
// checked against; "" leaves tool_input unchecked.
func CheckPath(event, tool string, path []string) *Missing {
	mk, ok := newEvent[event]
	if !ok {
		return nil
	}
	t := reflect.TypeOf(mk()).Elem()
	for i := 0; i < len(path); i++ {
		seg := path[i]
		switch t.Kind() {
		case reflect.Pointer:
			t = t.Elem()
			i--
			continue
		case reflect.Struct:
			table := fieldTable(t)
			idx, ok := table[seg]
			if !ok {
				known := make([]string, 0, len(table))
				for k := range table {
					known = append(known, k)
				}
				sort.Strings(known)
				return &Missing{Where: event, Field: strings.Join(path[:i+1], "."), Known: known}
			}
			if i == 0 && seg == "tool_input" && tool != "" {
				return checkSchema(tool, path[1:])
			}
			t = t.FieldByIndex(idx).Type
		case reflect.Slice:
			if t == rawMessageType || seg != "[]" {
				return nil // passed through as sent, or read as jq would fail
			}
			t = t.Elem()
		default:
			return nil
		}
	}
	return nil
}

var rawMessageType = reflect.TypeOf(json.RawMessage(nil))

// checkSchema checks the part of a path below tool_input against the
// tool's input schema.
func checkSchema(tool string, path []string) *Missing {
	s, ok := toolSchemas()[tool]
	if !ok {
		return nil
	}
	for i, seg := range path {
		switch {
		case seg == "[]" && s.Items != nil:
			s = s.Items
		case s.Properties != nil:
			sub, ok := s.Properties[seg]
			if !ok {
				if s.AdditionalProperties != nil && s.AdditionalProperties != false {
					return nil
				}
				known := make([]string, 0, len(s.Properties))
				for k := range s.Properties {
					known = append(known, k)
				}
				sort.Strings(known)
				return &Missing{Where: tool, Field: "tool_input." + strings.Join(path[:i+1], "."), Known: known}
			}
			s = sub
		default:
			return nil
		}
	}
	return nil
}

// sameRole groups fields that hold the same thing in different tools:
// the hookify mistakes (Write's content is Edit's new_string).
var sameRole = [][]string{
	{"content", "new_string", "new_source"},
	{"file_path", "notebook_path", "path"},
	{"prompt", "user_prompt", "query"},
}

// Closest is the known name most likely meant by name: the one holding
// the same thing in another tool, else one containing it or contained in
// it, else one it abbreviates, else the nearest by edit distance (at most
// a third of the name changed); "" when none is close.
func Closest(name string, known []string) string {
	for _, g := range sameRole {
		if slices.Contains(g, name) {
			for _, k := range g {
				if k != name && slices.Contains(known, k) {
					return k
				}
			}
		}
	}
	lower := strings.ToLower(name)
	for _, k := range known {
		kl := strings.ToLower(k)
		if len(k) > 2 && (strings.Contains(lower, kl) || strings.Contains(kl, lower)) {
			return k
		}
	}
	for _, k := range known {
		if len(name) > 2 && isAbbrev(lower, strings.ToLower(k)) {
			return k // cmd: command
		}
	}
	best, bestD := "", len(name)/3+1
	for _, k := range known {
		if d := spell.Distance(lower, strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// isAbbrev reports whether a is b with letters left out, starting with
// b's first letter.
func isAbbrev(a, b string) bool {
	if a == "" || b == "" || a[0] != b[0] {
		return false
	}
	j := 0
	for i := 0; i < len(b) && j < len(a); i++ {
		if b[i] == a[j] {
			j++
		}
	}
	return j == len(a)
}
