package jq

import (
	"reflect"
	"strings"
	"testing"
)

func TestPaths(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want string // paths joined by "." and separated by " "
	}{
		{`.tool_input.content // "" | startswith("touch")`, "tool_input tool_input.content"},
		{`.prompt | test("deploy")`, "prompt"},
		{`.tool_input | .command`, "tool_input tool_input.command"},
		{`.tool_input | has("content")`, "tool_input tool_input.content"},
		{`.tool_input["new_string"]`, "tool_input tool_input.new_string"},
		{`.tool_input."old_string"`, "tool_input tool_input.old_string"},
		{`.tool_input as $in | $in.file_path | endswith(".go")`, "tool_input tool_input.file_path"},
		{`. as {tool_input: {$command}} | $command`, "tool_input tool_input.command"},
		{`select(.stop_hook_active) | .last_assistant_message`, "stop_hook_active last_assistant_message"},
		{`.tool_calls | map(.tool_name) | any(. == "Bash")`, "tool_calls tool_calls.[].tool_name"},
		{`.tool_calls[] | .tool_input.command`, "tool_calls tool_calls.[] tool_calls.[].tool_input tool_calls.[].tool_input.command"},
		{`any(.tool_calls[]; .tool_name == "Bash")`, "tool_calls tool_calls.[] tool_calls.[].tool_name"},
		{`if .source == "startup" then .model else .cwd end`, "source model cwd"},
		{`(.a, .b) | length > 0`, "a b"},
		{`{x: .cwd, prompt} | .x`, "cwd prompt"},
		{`"\(.cwd)/x" | length`, "cwd"},
		{`.tool_input[.key]`, "tool_input key tool_input.[]"},
		{`try .tool_response.stdout catch false`, "tool_response tool_response.stdout"},
		{`reduce .tool_calls[] as $c (0; . + ($c.tool_name | length))`, "tool_calls tool_calls.[] tool_calls.[].tool_name"},
		{`def f: .hidden; f`, ""},
		{`.[] | .x`, "[] [].x"},
		{`true`, ""},
	} {
		got, err := Paths(tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		var s []string
		for _, p := range got {
			s = append(s, strings.Join(p, "."))
		}
		if want := strings.Fields(tc.want); !reflect.DeepEqual(s, want) && !(len(s) == 0 && len(want) == 0) {
			t.Errorf("Paths(%s) = %q, want %q", tc.expr, s, want)
		}
	}
	if _, err := Paths(`.a |`); err == nil {
		t.Error("Paths of a broken expression: no error")
	}
}

// FuzzPaths: any expression either fails to parse or yields paths of
// non-empty segments; the walk never panics.
func FuzzPaths(f *testing.F) {
	for _, s := range []string{`.a.b // .c | has("d")`, `reduce .[] as [$a, {b: $c}] (0; . + $a)`, `def f: .x; f | .y`,
		`.a as {$b, "c": [$d]} | $b.e`, `try .a catch .b`, `label $out | foreach .[] as $x (0; .+1; .)`, `{a, "b": .c, (.d): 1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		ps, err := Paths(expr)
		if err != nil {
			return
		}
		for _, p := range ps {
			if len(p) == 0 {
				t.Fatalf("%q: an empty path", expr)
			}
		}
	})
}
