package jq

import (
	"errors"
	"strings"
	"testing"
)

func run(t *testing.T, expr, in string, vars ...[2]string) ([]string, error) {
	t.Helper()
	f, err := Compile(expr, vars)
	if err != nil {
		return nil, err
	}
	v, err := Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	err = f.Run(v, func(r any) error {
		b, err := Marshal(r)
		out = append(out, string(b))
		return err
	})
	return out, err
}

func TestRun(t *testing.T) {
	tests := []struct {
		name, expr, in string
		vars           [][2]string
		want           string
	}{
		{"field", ".a", `{"a":1}`, nil, `1`},
		{"big integer stays exact", ".n", `{"n":123456789012345678901234567890}`, nil, `123456789012345678901234567890`},
		{"decimal stays as written", ".x", `{"x":0.1000000000000000055511151231257827}`, nil, `0.1000000000000000055511151231257827`},
		{"int64 id", ".id", `{"id":9007199254740993}`, nil, `9007199254740993`},
		{"html stays literal", ".t", `{"t":"<a&b>"}`, nil, `"<a&b>"`},
		{"several results", ".[]", `[1,"x",null]`, nil, `1 "x" null`},
		{"arg", `$who + "!"`, `{}`, [][2]string{{"who", "me"}}, `"me!"`},
		{"env is empty", `$ENV | length`, `{}`, nil, `0`},
		{"env function is empty", `env | length`, `{}`, nil, `0`},
		{"select none", `select(.a == 2)`, `{"a":1}`, nil, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := run(t, tt.expr, tt.in, tt.vars...)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("got %q, want %q", strings.Join(got, " "), tt.want)
			}
		})
	}
}

func TestCompileErrorHasCaret(t *testing.T) {
	_, err := Compile(".a | .[", nil)
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v", err)
	}
	want := "invalid jq expression: unexpected EOF\n    .a | .[\n           ^"
	if err.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", err, want)
	}
	_, err = Compile("nosuchfunc(1)", nil)
	if err == nil || !strings.Contains(err.Error(), "nosuchfunc") {
		t.Errorf("compile error: %v", err)
	}
	_, err = Compile("$undefined", nil)
	if err == nil {
		t.Error("an undefined variable must not compile")
	}
}

func TestHalt(t *testing.T) {
	_, err := run(t, "1, halt, 2", `{}`)
	if !errors.Is(err, ErrHalt) {
		t.Fatalf("halt: got %v", err)
	}
	_, err = run(t, `"boom" | halt_error`, `{}`)
	var re *RuntimeError
	if err == nil || errors.Is(err, ErrHalt) || errors.As(err, &re) {
		t.Fatalf("halt_error with a value must end the run (not a per-record error), got %v", err)
	}
	_, err = run(t, `error("bad")`, `{}`)
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "bad") {
		t.Fatalf("error: got %v, want a RuntimeError", err)
	}
}

// CompileVars' variables are null until SetVars gives them any tree.
func TestCompileVars(t *testing.T) {
	f, err := CompileVars(`[$spend.day, $b]`, "spend", "b")
	if err != nil {
		t.Fatal(err)
	}
	run := func() string {
		var out []byte
		if err := f.Run(nil, func(v any) error { out, _ = Marshal(v); return nil }); err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	if got := run(); got != `[null,null]` {
		t.Errorf("before SetVars: %s", got)
	}
	f.SetVars(map[string]any{"day": 5.5}, "x")
	if got := run(); got != `[5.5,"x"]` {
		t.Errorf("after SetVars: %s", got)
	}
}
