package ccentries

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// TestPrintSettings: --archive DIR --print-settings prints the SessionEnd
// hook that runs this binary by absolute path with DIR made absolute
// (quoted for the shell), stdout dropped; stderr names the user settings
// file. Kept in testdata/golden/settings.golden, the cwd written $CWD.
func TestPrintSettings(t *testing.T) {
	sys := cli.System{Home: "/home/dev", Executable: func() (string, error) { return "/usr/local/bin/cc-entries", nil }}
	main := func(args ...string) (int, string, string) {
		return golden.Call(func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return RunWith(sys, args, stdin, stdout, stderr)
		}, "", args...)
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := main("--archive", "claude archive", "--print-settings")
	got := strings.ReplaceAll(golden.Output(code, errs, out), cwd, "$CWD")
	golden.Check(t, filepath.Join("testdata", "golden", "settings.golden"), got)
	var v struct {
		Hooks map[string][]struct {
			Hooks []struct{ Type, Command string }
		}
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("stdout is not one JSON object: %v", err)
	}
	want := "/usr/local/bin/cc-entries --archive '" + filepath.Join(cwd, "claude archive") + "' >/dev/null"
	if h := v.Hooks["SessionEnd"]; len(v.Hooks) != 1 || len(h) != 1 || len(h[0].Hooks) != 1 || h[0].Hooks[0].Command != want {
		t.Errorf("hooks %+v, want one SessionEnd hook %q", v.Hooks, want)
	}

	for _, tt := range []struct {
		args []string
		err  string
	}{
		{[]string{"--print-settings"}, "give --archive DIR with it"},
		{[]string{"--archive", "x", "--print-settings", session}, "--print-settings takes no transcripts"},
		{[]string{"--archive", "x", "--print-settings", "--types", "user"}, "--archive copies whole sessions"},
	} {
		if code, out, errs := main(tt.args...); code != 2 || out != "" || !strings.Contains(errs, tt.err) {
			t.Errorf("%q: exit %d, out %q, err %q, want exit 2 and %q", tt.args, code, out, errs, tt.err)
		}
	}
}
