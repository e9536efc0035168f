package proxy

import (
	"strconv"
	"strings"
)

// IDs maps provider tool-call ids (toolu_…, call_…) to neutral ids call-N,
// so a cassette never holds a provider id and a replayed call-N maps back
// to itself (spec §1.4, §7.1).
type IDs struct {
	m    map[string]string
	next int
}

// NewIDs returns an empty table.
func NewIDs() *IDs { return &IDs{m: map[string]string{}} }

// Assign returns the neutral id of a provider id, numbering new ones.
func (t *IDs) Assign(provider string) string {
	if id, ok := t.m[provider]; ok {
		return id
	}
	if n, ok := callNumber(provider); ok { // a replayed id coming back
		t.Register(provider)
		_ = n
		return provider
	}
	id := "call-" + strconv.Itoa(t.next)
	t.next++
	t.m[provider] = id
	return id
}

// Register makes a served call-N map to itself and moves the counter past it.
func (t *IDs) Register(id string) {
	t.m[id] = id
	if n, ok := callNumber(id); ok && n >= t.next {
		t.next = n + 1
	}
}

// Next is the id the next new call gets.
func (t *IDs) Next() string {
	id := "call-" + strconv.Itoa(t.next)
	t.next++
	t.m[id] = id
	return id
}

func callNumber(id string) (int, bool) {
	s, ok := strings.CutPrefix(id, "call-")
	if !ok || s == "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0 && strconv.Itoa(n) == s
}

// Rewrite replaces the provider ids the table knows inside text with their
// neutral ids: Claude Code quotes tool_use ids in text (a background
// agent's <task-notification> names its <tool-use-id>), which would
// otherwise keep a provider id in the cassette and differ in replay.
func (t *IDs) Rewrite(s string) string {
	if !strings.Contains(s, "toolu_") && !strings.Contains(s, "call_") {
		return s
	}
	for p, id := range t.m {
		if p != id && p != "" && strings.Contains(s, p) {
			s = strings.ReplaceAll(s, p, id)
		}
	}
	return s
}

// rewriteStrings applies the table's Rewrite to every string in v, in place.
func (t *IDs) rewriteStrings(v any) any {
	switch x := v.(type) {
	case string:
		return t.Rewrite(x)
	case []any:
		for i := range x {
			x[i] = t.rewriteStrings(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = t.rewriteStrings(x[k])
		}
	}
	return v
}
