package cli

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// limits is a command with a repeatable flag, minimums, a duration that
// must be positive and one that must not be negative.
func limits(noJQ string) *Command {
	var names []string
	var workers, context int
	var poll, wait time.Duration
	return &Command{
		Sys: &System{}, NoJQ: noJQ,
		Name: "cc-test", Synopsis: "cc-test [flags]", Help: "usage: cc-test [flags]",
		SetFlags: func(f *Flags) {
			f.StringsVar(&names, "name", "a `NAME` (repeatable)")
			f.IntVar(&workers, "workers", 4, "`N` at once")
			f.IntVarP(&context, "context", "C", 80, "`N` around")
			f.DurationVar(&poll, "poll", time.Second, "how often")
			f.DurationVar(&wait, "wait", 0, "how long")
			f.AtLeast("workers", 1)
			f.AtLeast("context", 0)
			f.Positive("poll")
			f.AtLeast("wait", 0)
		},
		Run: func(env *Env, args []string) error {
			_, err := fmt.Fprintf(env.Stdout, "%q %d %d %s %s\n", names, workers, context, poll, wait)
			return err
		},
	}
}

func TestRulesLimits(t *testing.T) {
	usage := "\nusage: cc-test [flags]\nRun 'cc-test -h' for help.\n"
	for _, tt := range []struct {
		args []string
		code int
		out  string
		err  string
	}{
		{nil, 0, "[] 4 80 1s 0s\n", ""},
		{[]string{"--name", "a", "x", "--name=b"}, 0, "[\"a\" \"b\"] 4 80 1s 0s\n", ""},
		{[]string{"--workers", "0"}, 2, "", "cc-test: --workers must be 1 or more, not 0" + usage},
		{[]string{"--workers", "1", "-C", "-1"}, 2, "", "cc-test: --context must be 0 or more, not -1" + usage},
		{[]string{"--context", "0", "--workers", "1"}, 0, "[] 1 0 1s 0s\n", ""},
		{[]string{"--poll", "0s"}, 2, "", "cc-test: --poll must be positive" + usage},
		{[]string{"--wait", "-1s"}, 2, "", "cc-test: --wait must not be negative" + usage},
		{[]string{"--jq", ".", "--workers", "2"}, 0, "[] 2 80 1s 0s\n", ""},
	} {
		code, out, errs := call(limits(""), nil, tt.args...)
		if code != tt.code || out != tt.out || errs != tt.err {
			t.Errorf("%q: got (%d, %q, %q)\nwant (%d, %q, %q)", tt.args, code, out, errs, tt.code, tt.out, tt.err)
		}
	}
}

// TestRuleOnNoNumber: a minimum on a flag that is no int or duration
// never holds, so that the command's first test shows the mistake.
func TestRuleOnNoNumber(t *testing.T) {
	c := &Command{Sys: &System{}, Name: "cc-test", Synopsis: "cc-test", Help: "usage: cc-test",
		SetFlags: func(f *Flags) {
			var s string
			f.StringVar(&s, "name", "", "a name")
			f.AtLeast("name", 1)
		},
		Run: func(*Env, []string) error { return nil },
	}
	if code, _, errs := call(c, nil); code != 2 || !strings.Contains(errs, "--name is not an int or duration flag") {
		t.Errorf("exit %d, %q", code, errs)
	}
}

// TestNoJQ: a command that prints no records offers no --jq, -r, -c or
// --arg in its help and refuses each with its reason.
func TestNoJQ(t *testing.T) {
	const why = "cc-test prints a page, not records: --jq does not apply"
	usage := "\nusage: cc-test [flags]\nRun 'cc-test -h' for help.\n"
	for _, args := range [][]string{{"--jq", "."}, {"-q", "."}, {"--jq=."}, {"-r"}, {"--raw-output"}, {"-c"}, {"--arg", "a", "b"}} {
		code, out, errs := call(limits(why), nil, args...)
		if code != 2 || out != "" || errs != "cc-test: "+why+usage {
			t.Errorf("%q: got (%d, %q, %q)", args, code, out, errs)
		}
	}
	_, help, _ := call(limits(why), nil, "-h")
	for _, flag := range []string{"--jq", "--raw-output", "--compact-output", "--arg"} {
		if strings.Contains(help, flag) {
			t.Errorf("-h offers %s:\n%s", flag, help)
		}
	}
	for _, fd := range limits(why).Doc().Flags {
		if jqFlags[fd.Name] {
			t.Errorf("the docs list --%s", fd.Name)
		}
	}
	if _, help, _ := call(limits(""), nil, "-h"); !strings.Contains(help, "--jq") || !strings.Contains(help, "--arg NAME VALUE") {
		t.Errorf("without NoJQ, -h offers no --jq:\n%s", help)
	}
	// An unknown flag is still an unknown flag.
	if _, _, errs := call(limits(why), nil, "--zzz"); !strings.HasPrefix(errs, "cc-test: unknown flag --zzz") {
		t.Errorf("--zzz: %q", errs)
	}
}

// TestNoSystem: a command given no System fails before it runs, rather
// than reading the real machine; a subcommand runs in its parent's.
func TestNoSystem(t *testing.T) {
	ran := false
	c := &Command{Name: "cc-test", Synopsis: "cc-test", Help: "usage: cc-test", Run: func(*Env, []string) error { ran = true; return nil }}
	if code, _, errs := call(c, nil); code != 1 || ran || !strings.Contains(errs, "no System") {
		t.Errorf("no System: exit %d, ran %v, %q", code, ran, errs)
	}
	sub := &Command{Name: "sub", Synopsis: "cc-test sub", Help: "usage: cc-test sub", Run: func(*Env, []string) error { ran = true; return nil }}
	parent := &Command{Sys: &System{}, Name: "cc-test", Synopsis: "cc-test sub", Help: "usage: cc-test COMMAND", Subcommands: []*Command{sub}}
	if code, _, errs := call(parent, nil, "sub"); code != 0 || !ran {
		t.Errorf("subcommand: exit %d, ran %v, %q", code, ran, errs)
	}
}
