package cccassette

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// runTerm runs cc-cassette with its stdout a terminal of width columns,
// as the terminal check sees it (colour off).
func runTerm(t *testing.T, width int, stdin string, args ...string) (int, string, string) {
	t.Helper()
	sys := cli.System{
		Getenv:   func(k string) string { return map[string]string{"NO_COLOR": "1"}[k] },
		Terminal: func(io.Writer) (int, bool) { return width, true },
	}
	return golden.Call(func(a []string, in io.Reader, out, errw io.Writer) int { return RunWith(sys, a, in, out, errw) }, stdin, args...)
}

// TestTerminalViews keeps what a person sees on a terminal of 60 and of
// 160 columns: show's step list of an imported real session and of a
// crafted one whose tool output spans lines and holds a tab, an escape
// sequence, a carriage return and a bidi override (each step's text
// stays in its block, indented under the summary, cut to the width, the
// rest counted; characters shown by lib/cli's one rule for table cells,
// cli.Fit; show --step's payload is whole, not cut); verify's and
// assert's records as tables (pass, fail, a broken chain). No line is
// wider than the terminal, and no control character reaches it. Into a
// pipe the same commands print NDJSON records.
func TestTerminalViews(t *testing.T) {
	code, crafted, errs := run(t, "", "import", "testdata/terminal/controls.jsonl")
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	real := "testdata/corpus/c0a1f001-0000-4000-8000-000000000001.ndjson"
	ok, failed := fixtures+"success-final-answer.v2.json", fixtures+"error-unknown-tool.v2.json"
	tampered := strings.Replace(ndjsonOf(t, "success-final-answer.v2.json"), "Paris.", "Lyon.", 1)
	for _, width := range []int{60, 160} {
		for _, tc := range []struct {
			name, stdin string
			args        []string
		}{
			{"show_real", "", []string{"show", real}},
			{"show_controls", crafted, []string{"show"}},
			{"show_step_controls", crafted, []string{"show", "--step", "3"}},
			{"verify", tampered, []string{"verify", ok, failed, "-", real}},
			{"assert_pass", "", []string{"assert", real, "--expect-status", "success", "--expect-tools", "Bash,Edit"}},
			{"assert_fail", "", []string{"assert", real, "--expect-tools", "Bash,WebFetch", "--expect-tool-sequence", "Bash,Edit"}},
			{"assert_verify_fails", tampered, []string{"assert", "--expect-status", "success"}},
		} {
			name := tc.name + "_" + map[int]string{60: "60", 160: "160"}[width]
			t.Run(name, func(t *testing.T) {
				code, out, errs := runTerm(t, width, tc.stdin, tc.args...)
				golden.Check(t, filepath.Join("testdata", "terminal", name+".txt"), golden.Output(code, errs, out))
				whole := strings.HasPrefix(tc.name, "show_step") // the payload, whole: never cut
				for _, l := range strings.Split(out, "\n") {
					if n := utf8.RuneCountInString(l); n > width && !whole {
						t.Errorf("a line of %d columns at width %d: %q", n, width, l)
					}
					if strings.ContainsFunc(l, unicode.IsControl) {
						t.Errorf("a control character reaches the terminal: %q", l)
					}
				}
			})
		}
	}
	// Into a pipe: NDJSON, as testdata/records holds it.
	for _, args := range [][]string{{"verify", ok, failed}, {"assert", failed, "--expect-status", "success"}, {"show", failed}} {
		code, out, _ := run(t, "", args...)
		if code > 1 || !bytes.HasPrefix([]byte(out), []byte(`{"`)) || strings.Contains(out, "Pass") {
			t.Errorf("%v into a pipe: exit %d\n%s", args, code, out)
		}
	}
}
