package jq

import (
	"strings"
	"testing"
)

// A regular expression written as a literal is compiled with the
// expression: test("[a-") fails here, not on every input.
func TestRegexLiteralChecked(t *testing.T) {
	for _, bad := range []string{`test("[a-")`, `.x | match("(" ; "g")`, `sub("a(b"; "c")`, `[splits("*")]`,
		`split("(";"g")`, `select(.tool_input.command | test( "(?<x" ))`} {
		_, err := Compile(bad, nil)
		if err == nil || !strings.Contains(err.Error(), "invalid regular expression") {
			t.Errorf("%s: %v", bad, err)
		}
		if _, err := Paths(bad); err == nil {
			t.Errorf("Paths(%s) passed", bad)
		}
	}
	for _, good := range []string{`test("a+")`, `split("(")`, `test("a b #c"; "x")`, `test("\(.re)")`,
		`"test(\"(\")"`, `.test`, `$__loc__ | .test`, `def test(x): x; 1`, `# test("(")` + "\n."} {
		if _, err := Compile(good, nil); err != nil && strings.Contains(err.Error(), "regular expression") {
			t.Errorf("%s: %v", good, err)
		}
	}
}

// Deep nesting is refused before gojq parses it (it recursed once per
// level and overflowed the stack), with a short message.
func TestDepthLimit(t *testing.T) {
	for _, open := range []string{"(", "[", "{a:", `"\(`} {
		expr := strings.Repeat(open, 700_000) + "1"
		_, err := Compile(expr, nil)
		if err == nil || !strings.Contains(err.Error(), "nested deeper than") || len(err.Error()) > 300 {
			t.Fatalf("%q x 700000: %.300v", open, err)
		}
	}
	ok := strings.Repeat("(", MaxDepth) + "1" + strings.Repeat(")", MaxDepth)
	if _, err := Compile(ok, nil); err != nil {
		t.Fatalf("%d levels: %v", MaxDepth, err)
	}
}
