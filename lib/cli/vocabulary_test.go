package cli

import (
	"context"
	"strings"
	"testing"
)

// vocab is a command using the declarative vocabulary: an Enum, an
// Exclusive and a Requires rule.
func vocab() *Command {
	var sum, mode string
	var a, b, c, d bool
	return &Command{
		Sys:  &System{},
		Name: "cc-test", Short: "tests the vocabulary", Synopsis: "cc-test [flags]", Help: "usage: cc-test [flags]\n\nTests.",
		SetFlags: func(f *Flags) {
			f.Enum(&sum, "sum", "", "aggregate by `GROUP`", []string{"session", "model", "day", "block"})
			f.Enum(&mode, "mode", "", "the `MODE`", []string{"bypass", "prompting"})
			f.BoolVar(&a, "active", false, "a")
			f.BoolVar(&b, "find", false, "b")
			f.BoolVar(&c, "current", false, "c")
			f.BoolVar(&d, "stamp", false, "d")
			f.Exclusive("active", "find", "current")
			f.Requires("stamp", "active", "find")
			f.Exclusive("sum", "mode").Says("--sum and --mode: give one")
		},
		Run: func(env *Env, args []string) error { return env.Out.Write(map[string]any{"sum": sum}) },
	}
}

func TestVocabulary(t *testing.T) {
	usage := "\nusage: cc-test [flags]\nRun 'cc-test -h' for help.\n"
	tests := []struct {
		args []string
		code int
		out  string
		err  string
	}{
		{[]string{"--sum", "day"}, 0, `{"sum":"day"}` + "\n", ""},
		{[]string{"--sum", "days"}, 2, "", `cc-test: --sum "days": want one of session, model, day, block; did you mean day?` + usage},
		{[]string{"--sum", "xyzzy"}, 2, "", `cc-test: --sum "xyzzy": want one of session, model, day, block` + usage},
		{[]string{"--mode", "auto"}, 2, "", `cc-test: --mode "auto": want bypass or prompting` + usage},
		{[]string{"--mode", "byp"}, 2, "", `cc-test: --mode "byp": want bypass or prompting; did you mean bypass?` + usage},
		{[]string{"--active", "--current"}, 2, "", "cc-test: --active, --find and --current exclude each other" + usage},
		{[]string{"--active", "--current=false"}, 0, `{"sum":""}` + "\n", ""},
		{[]string{"--stamp"}, 2, "", "cc-test: --stamp works with --active or --find" + usage},
		{[]string{"--stamp", "--find"}, 0, `{"sum":""}` + "\n", ""},
		{[]string{"--sum", "day", "--mode", "bypass"}, 2, "", "cc-test: --sum and --mode: give one" + usage},
		{[]string{"--acitve"}, 2, "", "cc-test: unknown flag --acitve; did you mean --active?" + usage},
		{[]string{"-sta"}, 2, "", "cc-test: unknown flag --sta; did you mean --stamp?" + usage},
		{[]string{"--zzz"}, 2, "", "cc-test: unknown flag --zzz" + usage},
		{[]string{"-c", "--compact-output"}, 0, `{"sum":""}` + "\n", ""},
	}
	for _, tt := range tests {
		code, out, errs := call(vocab(), nil, tt.args...)
		if code != tt.code || out != tt.out || errs != tt.err {
			t.Errorf("%q: got (%d, %q, %q)\nwant (%d, %q, %q)", tt.args, code, out, errs, tt.code, tt.out, tt.err)
		}
	}
}

func TestEnumHelpCompletionDoc(t *testing.T) {
	_, out, _ := call(vocab(), nil, "-h")
	if !strings.HasPrefix(out, "cc-test - tests the vocabulary\n\nusage: cc-test [flags]\n") {
		t.Errorf("help does not start with the summary:\n%s", out)
	}
	if !strings.Contains(out, "--sum GROUP         aggregate by GROUP (session, model, day, block)\n") {
		t.Errorf("help does not name the values of --sum:\n%s", out)
	}
	var b strings.Builder
	vocab().complete(context.Background(), &b, []string{"--sum", ""})
	if b.String() != "session\nmodel\nday\nblock\n" {
		t.Errorf("completion of --sum: %q", b.String())
	}
	d := vocab().Doc()
	if d.Short != "tests the vocabulary" {
		t.Errorf("Doc.Short = %q", d.Short)
	}
}

func TestSuggest(t *testing.T) {
	kinds := []string{"prompts", "texts", "tools", "shell", "files", "subagents", "failures", "usage", "compactions", "conversation"}
	tests := []struct{ word, want string }{
		{"shel", "shell"},
		{"promts", "prompts"},
		{"tool", "tools"},  // prefix
		{"toosl", "tools"}, // transposition
		{"usgae", "usage"}, // transposition
		{"co", ""},         // ambiguous prefix: compactions, conversation
		{"x", ""},          // too short to guess
		{"texts", ""},      // not a misspelling
		{"conversations", "conversation"},
		{"words", ""},
		{"pdf", ""}, // two edits from md: a guess, not a misspelling
	}
	for _, tt := range tests {
		if got := Suggest(tt.word, kinds); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
	if got := DidYouMean("shel", kinds); got != "; did you mean shell?" {
		t.Errorf("DidYouMean = %q", got)
	}
}

// parent has two subcommands, one with its own flag and completion.
func parent() (*Command, *[]string) {
	var got []string
	var n int
	run := func(env *Env, args []string) error { got = append([]string{env.Name}, args...); return nil }
	return &Command{
		Sys:  &System{},
		Name: "cc-test", Short: "tests subcommands", Synopsis: "cc-test COMMAND", Help: "usage: cc-test COMMAND\n\nCommands:\n" + SubcommandList(nil),
		Subcommands: []*Command{
			{Name: "verify", Short: "checks", Synopsis: "cc-test verify [-n N] FILE", Help: "usage: cc-test verify [-n N] FILE",
				SetFlags: func(f *Flags) { f.IntVar(&n, "n", 0, "a number") }, Run: run,
				Complete: func(context.Context, string, []string) []string { return []string{"a.ndjson"} }},
			{Name: "show", Short: "shows", Synopsis: "cc-test show FILE", Help: "usage: cc-test show FILE", Run: func(env *Env, args []string) error {
				dashed, ok := env.Flags.AfterDash()
				if !ok || len(dashed) != 1 {
					return Usagef("want one argument after --, got %q", dashed)
				}
				return nil
			}},
		},
	}, &got
}

func TestSubcommands(t *testing.T) {
	tests := []struct {
		args []string
		code int
		out  string
		err  string
	}{
		{nil, 2, "", "cc-test: a command is needed (verify, show)\nRun 'cc-test -h' for help.\n"},
		{[]string{"verfy"}, 2, "", "cc-test: unknown command \"verfy\" (verify, show); did you mean verify?\nRun 'cc-test -h' for help.\n"},
		{[]string{"verify", "-n", "x"}, 2, "", "cc-test: -n \"x\": parse error\nusage: cc-test verify [-n N] FILE\nRun 'cc-test -h' for help.\n"},
		{[]string{"verify", "-n", "1", "f"}, 0, "", ""},
		{[]string{"show", "a", "--", "b"}, 0, "", ""},
		{[]string{"__complete", "verify", ""}, 0, "a.ndjson\n", ""},
		{[]string{"__complete", ""}, 0, "verify\nshow\n", ""},
		{[]string{"__complete", "verify", "--"}, 0, "--arg\n--compact-output\n--completion\n--help\n--jq\n--n\n--raw-output\n--version\n", ""},
	}
	for _, tt := range tests {
		c, _ := parent()
		code, out, errs := call(c, nil, tt.args...)
		if code != tt.code || out != tt.out || errs != tt.err {
			t.Errorf("%q: got (%d, %q, %q)\nwant (%d, %q, %q)", tt.args, code, out, errs, tt.code, tt.out, tt.err)
		}
	}
	c, got := parent()
	call(c, nil, "verify", "x", "-n", "2")
	if strings.Join(*got, " ") != "cc-test x" {
		t.Errorf("verify ran as %q", *got)
	}
	_, out, _ := call(c, nil, "help", "verify")
	if !strings.HasPrefix(out, "cc-test verify - checks\n\nusage: cc-test verify [-n N] FILE\n\nFlags:\n") {
		t.Errorf("help verify:\n%s", out)
	}
	d := c.Doc()
	if len(d.Subcommands) != 0 {
		t.Errorf("Doc of the parent itself lists %d subcommands", len(d.Subcommands))
	}
	var b strings.Builder
	c.Main([]string{docArg}, nil, &b, nil)
	if !strings.Contains(b.String(), `"name": "cc-test verify"`) {
		t.Errorf("__doc does not name the subcommand in full:\n%s", b.String())
	}
	if l := SubcommandList(c.Subcommands); l != "  verify  checks\n  show    shows" {
		t.Errorf("SubcommandList = %q", l)
	}
}
