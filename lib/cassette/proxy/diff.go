package proxy

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf16"

	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/secrets"
)

// Difference is where two model_input payloads first differ (spec §8.2).
type Difference struct {
	Path             string
	Recorded, Actual string // compact JSON, masked, cut to 200 characters
}

// FirstDifference walks recorded and actual together and returns the
// first place they differ, or nil when they are equal.
func FirstDifference(recorded, actual any) *Difference {
	return firstDiff("", recorded, actual, true, true)
}

func firstDiff(path string, a, b any, hasA, hasB bool) *Difference {
	if hasA && hasB && Equal(a, b) {
		return nil
	}
	if hasA && hasB {
		aa, okA := a.([]any)
		bb, okB := b.([]any)
		if okA && okB {
			for i := 0; i < max(len(aa), len(bb)); i++ {
				var x, y any
				if i < len(aa) {
					x = aa[i]
				}
				if i < len(bb) {
					y = bb[i]
				}
				if d := firstDiff(fmt.Sprintf("%s[%d]", path, i), x, y, i < len(aa), i < len(bb)); d != nil {
					return d
				}
			}
			return nil
		}
		ma, okA := a.(map[string]any)
		mb, okB := b.(map[string]any)
		if okA && okB {
			keys := map[string]bool{}
			for k := range ma {
				keys[k] = true
			}
			for k := range mb {
				keys[k] = true
			}
			for _, k := range SortedKeys(keys) {
				p := k
				if path != "" {
					p = path + "." + k
				}
				x, inA := ma[k]
				y, inB := mb[k]
				if d := firstDiff(p, x, y, inA, inB); d != nil {
					return d
				}
			}
			return nil
		}
	}
	if path == "" {
		path = "(root)"
	}
	d := &Difference{Path: path, Recorded: render(a, hasA), Actual: render(b, hasB)}
	// Two long strings that differ late: show both from a little before
	// the first differing character, so the difference is on screen.
	if x, ok := a.(string); ok && hasA {
		if y, ok := b.(string); ok && hasB {
			// Masked whole before the window is taken: a key cut at the
			// window's start would no longer match a rule.
			rx, ry := []rune(maskAll(string(mustMarshal(x)))), []rune(maskAll(string(mustMarshal(y))))
			i := 0
			for i < len(rx) && i < len(ry) && rx[i] == ry[i] {
				i++
			}
			if i > 150 {
				d.Recorded = "…" + Cut(string(rx[i-60:]), 199)
				d.Actual = "…" + Cut(string(ry[i-60:]), 199)
			}
		}
	}
	return d
}

// SortedKeys sorts keys by UTF-16 code units, as JavaScript does.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return lessUTF16(keys[i], keys[j]) })
	return keys
}

func lessUTF16(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

func render(v any, has bool) string {
	if !has {
		return "(absent)"
	}
	b, err := ndjson.Marshal(v)
	if err != nil {
		return "(unprintable)"
	}
	return Cut(maskAll(string(b)), 200)
}

// maskAll hides credentials in a message: Blackbox's mask() (its rules
// and the known literal keys), then every rule of lib/secrets' Default set
// (GitHub, AWS, Slack, Stripe, ... keys Blackbox does not know).
func maskAll(s string, known ...string) string {
	s = secrets.MaskBlackbox(s, known...)
	out, _ := secrets.Default.ReplaceFunc([]byte(s), func(secrets.Match) string { return "[redacted]" })
	return string(out)
}

// Cut shortens s to n characters, the last one an ellipsis.
func Cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Equal compares two JSON values as their canonical forms would (numbers
// as doubles, -0 equal to 0, object key order ignored).
func Equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case float64, int, int64, json.Number:
		fx, _ := number(x)
		fy, ok := number(b)
		return ok && (fx == fy || (math.IsNaN(fx) && math.IsNaN(fy)))
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !Equal(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// number reads the number types decoders produce.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// DivergenceError is a replay that no longer follows its cassette.
type DivergenceError struct {
	Step int
	Diff Difference
	Hint string
}

func (e *DivergenceError) Error() string {
	s := fmt.Sprintf("replay diverged at step %d, %s\n  recorded: %s\n  actual:   %s", e.Step, e.Diff.Path, e.Diff.Recorded, e.Diff.Actual)
	if e.Hint != "" {
		s += "\n  " + e.Hint
	}
	return s
}

// Short is the one line the client sees in the 400 answer.
func (e *DivergenceError) Short() string {
	return fmt.Sprintf("replay diverged at step %d, %s", e.Step, e.Diff.Path)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
