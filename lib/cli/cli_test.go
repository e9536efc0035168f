package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/syncwriter"
)

// testCommand echoes its positional args and one flag as a record.
func testCommand(run func(env *Env, args []string) error) (*Command, *bool) {
	var loud bool
	c := &Command{
		Sys:  &System{},
		Name: "cc-test", Synopsis: "cc-test [flags] ARG...", Help: "usage: cc-test [flags] ARG...\n\nTests.",
		SetFlags: func(f *Flags) { f.BoolVar(&loud, "loud", false, "be loud") },
		Run:      run,
	}
	return c, &loud
}

func call(c *Command, in io.Reader, args ...string) (int, string, string) {
	var out, errb strings.Builder
	code := c.Main(args, in, &out, &errb)
	return code, out.String(), errb.String()
}

func TestMainRecordsAndFlags(t *testing.T) {
	var gotArgs []string
	c, loud := testCommand(func(env *Env, args []string) error {
		gotArgs = args
		return env.Out.Write(map[string]any{"args": args, "t": "<&>"})
	})
	tests := []struct {
		name     string
		args     []string
		code     int
		out, err string
		pos      []string
		loud     bool
	}{
		{"plain", []string{"a", "b"}, 0, `{"args":["a","b"],"t":"<&>"}` + "\n", "", []string{"a", "b"}, false},
		{"flag after positional", []string{"a", "--loud", "b"}, 0, `{"args":["a","b"],"t":"<&>"}` + "\n", "", []string{"a", "b"}, true},
		{"double dash keeps flags verbatim", []string{"a", "--", "--loud", "-q"}, 0, `{"args":["a","--loud","-q"],"t":"<&>"}` + "\n", "", []string{"a", "--loud", "-q"}, false},
		{"jq", []string{"-q", ".args[0]", "x"}, 0, "\"x\"\n", "", []string{"x"}, false},
		{"jq raw", []string{"x", "--jq", ".args[0]", "-r"}, 0, "x\n", "", []string{"x"}, false},
		{"jq arg", []string{"--jq", "$a + .t", "--arg", "a", "1"}, 0, "\"1<&>\"\n", "", nil, false},
		{"single dash long flag", []string{"-jq", ".t", "-raw-output"}, 0, "<&>\n", "", nil, false},
		{"unknown flag", []string{"--nope"}, 2, "", "cc-test: unknown flag --nope\nusage: cc-test [flags] ARG...\nRun 'cc-test -h' for help.\n", nil, false},
		{"arg missing value", []string{"--jq", ".", "--arg", "a"}, 2, "", "cc-test: --arg needs a NAME and a VALUE\nusage: cc-test [flags] ARG...\nRun 'cc-test -h' for help.\n", nil, false},
		{"raw without jq", []string{"-r"}, 2, "", "cc-test: --raw-output and --arg need --jq\nusage: cc-test [flags] ARG...\nRun 'cc-test -h' for help.\n", nil, false},
		{"bad jq", []string{"-q", ".a |"}, 2, "", "cc-test: --jq: invalid jq expression: unexpected EOF\n    .a |\n        ^\nusage: cc-test [flags] ARG...\nRun 'cc-test -h' for help.\n", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotArgs, *loud = nil, false
			code, out, errs := call(c, nil, tt.args...)
			if code != tt.code || out != tt.out || errs != tt.err {
				t.Errorf("got (%d, %q, %q)\nwant (%d, %q, %q)", code, out, errs, tt.code, tt.out, tt.err)
			}
			if tt.code == 0 && (strings.Join(gotArgs, "|") != strings.Join(tt.pos, "|") || *loud != tt.loud) {
				t.Errorf("args %q loud %v, want %q %v", gotArgs, *loud, tt.pos, tt.loud)
			}
		})
	}
}

func TestMainErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code int
		msg  string
	}{
		{"runtime", errors.New("reading x: boom"), 1, "cc-test: reading x: boom\n"},
		{"no match is silent", ErrNoMatch, 1, ""},
		{"wrapped no match is silent", errors.Join(ErrNoMatch), 1, ""},
		{"exit error", &ExitError{Code: 3, Err: errors.New("three")}, 3, "cc-test: three\n"},
		{"quiet exit error", &ExitError{Code: 1}, 1, ""},
		{"usage", Usagef("need %s", "X"), 2, "cc-test: need X\nusage: cc-test [flags] ARG...\nRun 'cc-test -h' for help.\n"},
		{"secret masked", errors.New("auth failed for sk-ant-api03-abcdefgh key 0123456789abcdef0123456789abcdef"), 1, "cc-test: auth failed for *** key ***\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := testCommand(func(*Env, []string) error { return tt.err })
			code, out, errs := call(c, nil)
			if code != tt.code || out != "" || errs != tt.msg {
				t.Errorf("got (%d, %q, %q), want (%d, %q)", code, out, errs, tt.code, tt.msg)
			}
		})
	}
}

func TestHelpAndVersion(t *testing.T) {
	c, _ := testCommand(func(*Env, []string) error { return errors.New("must not run") })
	code, out, errs := call(c, nil, "-h")
	if code != 0 || errs != "" || !strings.HasPrefix(out, "usage: cc-test") || !strings.Contains(out, "  -q, --jq EXPR") || !strings.Contains(out, "--loud") {
		t.Errorf("help: %d %q %q", code, out, errs)
	}
	code, out, _ = call(c, nil, "x", "--help")
	if code != 0 || !strings.Contains(out, "Flags:") {
		t.Errorf("help after positional: %d %q", code, out)
	}
	code, out, _ = call(c, nil, "--version")
	if code != 0 || !strings.HasPrefix(out, "cc-test ") || !strings.Contains(out, ClaudeCodeVersion) {
		t.Errorf("version: %d %q", code, out)
	}
}

func TestVersionOf(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "3e73199b4078df9f68ea6ddc862b047721e96056"}, {Key: "vcs.modified", Value: "true"}}
	tests := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"go install @version", debug.BuildInfo{Main: debug.Module{Version: "v0.3.1"}}, "v0.3.1"},
		{"pseudo-version from a checkout", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201132327-3e73199b4078+dirty"}, Settings: vcs}, "v0.0.0-20261201132327-3e73199b4078+dirty"},
		{"revision only", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs}, "(devel) 3e73199b4078+dirty"},
		{"nothing stamped", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, unstamped},
	}
	for _, tt := range tests {
		if got := versionOf(&tt.bi); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestJQHaltStopsQuietly(t *testing.T) {
	c, _ := testCommand(func(env *Env, _ []string) error {
		for i := 0; i < 3; i++ {
			if err := env.Out.Write(map[string]int{"i": i}); err != nil {
				return err
			}
		}
		return nil
	})
	code, out, errs := call(c, nil, "-q", "if .i == 1 then halt else .i end")
	if code != 0 || out != "0\n" || errs != "" {
		t.Errorf("got (%d, %q, %q)", code, out, errs)
	}
}

// One record's jq runtime error is reported with its number and the
// stream goes on; the run then exits 1 (jq's rule).
func TestJQRuntimeErrorSkipsRecord(t *testing.T) {
	c, _ := testCommand(func(env *Env, _ []string) error {
		for _, n := range []string{"1", "x", "3"} {
			if err := env.Out.Write(map[string]string{"n": n}); err != nil {
				return err
			}
		}
		return nil
	})
	code, out, errs := call(c, nil, "-q", ".n|tonumber")
	if code != 1 || out != "1\n3\n" || errs != "cc-test: --jq: record 2: jq: tonumber cannot be applied to \"x\": invalid number\n" {
		t.Errorf("got (%d, %q, %q)", code, out, errs)
	}
	// halt_error still ends the run at once.
	code, out, _ = call(c, nil, "-q", `if .n == "x" then "stop"|halt_error else .n end`)
	if code != 1 || out != "\"1\"\n" {
		t.Errorf("halt_error: got (%d, %q)", code, out)
	}
}

func TestEachInput(t *testing.T) {
	var lines []string
	c, _ := testCommand(func(env *Env, _ []string) error {
		_, err := env.EachInput(func(line []byte, _ int) error {
			lines = append(lines, string(line))
			return nil
		})
		return err
	})
	code, _, errs := call(c, strings.NewReader("{\"a\":1}\nbroken\n{\"b\":2}\n"))
	if code != 0 || strings.Join(lines, ",") != `{"a":1},{"b":2}` {
		t.Errorf("code %d lines %q", code, lines)
	}
	if errs != "cc-test: <stdin>:2: malformed JSON, line skipped\n" {
		t.Errorf("stderr %q", errs)
	}
}

func TestHasInput(t *testing.T) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	if HasInput(devnull) {
		t.Error("/dev/null must not count as input")
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	pw.Close()
	if !HasInput(pr) {
		t.Error("a pipe is input, even an empty one")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "in"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !HasInput(f) {
		t.Error("a regular file is input")
	}
	closed, _ := os.Open(os.DevNull)
	closed.Close()
	if HasInput(closed) || HasInput(nil) {
		t.Error("a closed or missing stdin is not input")
	}
	if !HasInput(strings.NewReader("")) {
		t.Error("a non-file reader is input")
	}
}

func TestClosedPipeEndsQuietly(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	pr.Close()
	c, _ := testCommand(func(env *Env, _ []string) error {
		for i := 0; ; i++ {
			if err := env.Out.Write(map[string]int{"i": i}); err != nil {
				return err
			}
			if i%1000 == 0 {
				if err := env.Out.Flush(); err != nil {
					return err
				}
			}
		}
	})
	var errb strings.Builder
	code := c.Main(nil, nil, pw, &errb)
	pw.Close()
	if code != 0 || errb.String() != "" {
		t.Errorf("got %d %q, want 0 and no message", code, errb.String())
	}
}

func TestMask(t *testing.T) {
	for in, want := range map[string]string{
		`{"type":"auth","token":"abc"}`:                                            `{"type":"auth","token":"***"}`,
		`key sk-ant-api03-xyz_-12 ok`:                                              `key *** ok`,
		`Authorization: Bearer abcdefghijkl`:                                       `Authorization: ***`,
		`{"peerToken":"0123456789abcdef0123456789abcdef"}`:                         `{"peerToken":"***"}`,
		`session 65062edb-0000-4000-8000-000000000001`:                             `session 65062edb-0000-4000-8000-000000000001`,
		`sha 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.key`: `sha 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.key`,
	} {
		if got := Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWarnfFromGoroutinesKeepsLinesWhole(t *testing.T) {
	c, _ := testCommand(func(env *Env, _ []string) error {
		done := make(chan struct{})
		for g := 0; g < 8; g++ {
			go func() {
				for i := 0; i < 50; i++ {
					env.Warnf("worker %d says %s", g, strings.Repeat("x", 100))
				}
				done <- struct{}{}
			}()
		}
		for g := 0; g < 8; g++ {
			<-done
		}
		return nil
	})
	_, _, errs := call(c, nil)
	lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
	if len(lines) != 400 {
		t.Fatalf("got %d lines, want 400", len(lines))
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "cc-test: worker ") || !strings.HasSuffix(l, strings.Repeat("x", 100)) {
			t.Fatalf("torn line %q", l)
		}
	}
}

func TestIsTerminal(t *testing.T) {
	if IsTerminal(&strings.Builder{}) || IsTerminal(syncwriter.New(&strings.Builder{})) {
		t.Error("a buffer is not a terminal")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) || IsTerminal(syncwriter.New(f)) {
		t.Error("a regular file is not a terminal")
	}
}

// The zero System is an empty, UTC world: a test that forgets a part gets
// no surprise from the machine it runs on.
func TestZeroSystem(t *testing.T) {
	var s System
	if s.Env("HOME") != "" || s.Location() != time.UTC || s.Clock().IsZero() {
		t.Errorf("zero System: env %q zone %v", s.Env("HOME"), s.Location())
	}
	os := OS()
	if os.Getenv == nil || os.Location() != time.Local {
		t.Error("OS() misses the environment or the local zone")
	}
}
