package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func completer() *Command {
	var s string
	var b bool
	return &Command{
		Sys:  &System{},
		Name: "cc-test", Synopsis: "cc-test", Help: "usage: cc-test",
		SetFlags: func(f *Flags) {
			f.StringVarP(&s, "profile", "p", "", "a `NAME`")
			f.BoolVar(&b, "loud", false, "loud")
		},
		Run: func(*Env, []string) error { return nil },
		Complete: func(_ context.Context, flag string, args []string) []string {
			if flag == "profile" {
				return []string{"work", "home"}
			}
			if flag == "" && len(args) == 0 {
				return []string{"usage", "tools"}
			}
			return nil
		},
	}
}

func TestComplete(t *testing.T) {
	tests := []struct {
		words []string
		want  string
	}{
		{[]string{""}, "usage\ntools\n"},
		{[]string{"us"}, "usage\ntools\n"}, // the shell filters by prefix
		{[]string{"usage", ""}, ""},
		{[]string{"--loud", ""}, "usage\ntools\n"}, // a bool flag takes no value
		{[]string{"--profile", ""}, "work\nhome\n"},
		{[]string{"-p", "w"}, "work\nhome\n"},
		{[]string{"--jq", ".", ""}, "usage\ntools\n"},
		{[]string{"--arg", "a", "b", ""}, "usage\ntools\n"},
		{[]string{"--completion", ""}, "bash\nzsh\nfish\n"},
		{[]string{"x", "--", ""}, ""},
		{[]string{"--l"}, "--arg\n--compact-output\n--completion\n--help\n--jq\n--loud\n--profile\n--raw-output\n--version\n"},
	}
	for _, tt := range tests {
		var out strings.Builder
		code := completer().Main(append([]string{completeArg}, tt.words...), nil, &out, nil)
		if code != 0 || out.String() != tt.want {
			t.Errorf("%q: got %d %q, want %q", tt.words, code, out.String(), tt.want)
		}
	}
}

func TestCompletionScripts(t *testing.T) {
	for _, sh := range Shells {
		code, out, errs := call(completer(), nil, "--completion", sh)
		if code != 0 || errs != "" || !strings.Contains(out, "cc-test "+completeArg) {
			t.Errorf("%s: %d %q %q", sh, code, out, errs)
		}
	}
	if code, _, errs := call(completer(), nil, "--completion", "tcsh"); code != 2 || !strings.Contains(errs, "want one of bash, zsh, fish") {
		t.Errorf("tcsh: %d %q", code, errs)
	}
}

// TestShellCompletion runs each shell's script the way the shell calls
// it, against a cc-test that is this test binary (see TestMain); a shell
// that is not installed is skipped.
func TestShellCompletion(t *testing.T) {
	dir := t.TempDir()
	exe, _ := os.Executable()
	if err := os.Symlink(exe, filepath.Join(dir, "cc-test")); err != nil {
		t.Fatal(err)
	}
	// Each run completes "cc-test --profile w" and then "cc-test t".
	runs := map[string]string{
		"bash": `
COMP_WORDS=(cc-test --profile w); COMP_CWORD=2; _cc_test; echo "${COMPREPLY[*]}"
COMP_WORDS=(cc-test t); COMP_CWORD=1; _cc_test; echo "${COMPREPLY[*]}"`,
		// compadd and compdef exist only inside completion: stand-ins
		// that print what would be offered (zsh then filters by prefix).
		"zsh": `
words=(cc-test --profile w); CURRENT=3; _cc_test | grep '^w'
words=(cc-test t); CURRENT=2; _cc_test | grep '^t'`,
		"fish": `
complete -C "cc-test --profile w"
complete -C "cc-test t"`,
	}
	prelude := map[string]string{
		"zsh": "compdef() { :; }; compadd() { shift; print -l -- ${(P)1}; }; _files() { :; }\n",
	}
	for _, sh := range Shells {
		t.Run(sh, func(t *testing.T) {
			path, err := exec.LookPath(sh)
			if err != nil {
				t.Skipf("no %s", sh)
			}
			_, script, _ := call(completer(), nil, "--completion", sh)
			var cmd *exec.Cmd
			if sh == "fish" {
				cmd = exec.Command(path, "--no-config", "-c", script+runs[sh])
			} else {
				cmd = exec.Command(path, "-c", prelude[sh]+script+runs[sh])
			}
			cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "CC_TEST_AS_COMMAND=1")
			cmd.Dir = t.TempDir() // no files to offer
			out, err := cmd.CombinedOutput()
			if err != nil || string(out) != "work\ntools\n" {
				t.Errorf("%s: %v\n%s", sh, err, out)
			}
		})
	}
}

func TestMain(m *testing.M) {
	if os.Getenv("CC_TEST_AS_COMMAND") == "1" {
		os.Exit(completer().Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
