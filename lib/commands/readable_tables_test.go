package commands_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ccpipe/ccpipe/lib/commands/cchook"
	"github.com/ccpipe/ccpipe/lib/commands/ccredact"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// TestReadableTables (issue 41 item 9): the records a person reads of
// cc-hook lint, backtest and test and of cc-redact --scan print as tables
// on a terminal, at 60 and 160 columns (goldens in testdata/tables), no
// line wider than the terminal; into a pipe they stay NDJSON, the same
// bytes as --format ndjson. (cc-cassette verify and assert: its
// TestTerminalViews.)
func TestReadableTables(t *testing.T) {
	token := "ghp_" + strings.Repeat("a1B2c3", 6)
	scanIn := `{"cc_source":{"path":"/p/s.jsonl","line":7,"session_id":"s1","agent_id":null},"type":"user","message":{"content":"` + token + `"}}` + "\n" +
		`{"type":"user","sessionId":"c0a1f001-0000-4000-8000-000000000001","message":{"content":[{"type":"text","text":"x ` + token + `"}]}}` + "\n"
	for _, tc := range []struct {
		name  string
		run   runWith
		stdin string
		args  []string
		code  int
	}{
		{"hook_lint", cchook.RunWith, "", []string{"lint", "cchook/testdata/lint-bad.yaml"}, 1},
		{"hook_backtest", cchook.RunWith, "", []string{"backtest", "../../testdata/hooks/history.yaml", "../../testdata/corpus/claude/projects"}, 0},
		{"hook_test", cchook.RunWith, "", []string{"test", "../../testdata/hooks/guard.yaml", "cchook/testdata/guard-wrong.cases.ndjson"}, 1},
		{"redact_scan", ccredact.RunWith, scanIn, []string{"--scan"}, 1},
	} {
		for _, width := range []int{60, 160} {
			name := tc.name + "_" + strconv.Itoa(width)
			t.Run(name, func(t *testing.T) {
				code, out, errs := runCmd(t, tc.run, corpusSystem(t, width, "NO_COLOR", "1"), tc.stdin, tc.args...)
				golden.Check(t, filepath.Join("testdata", "tables", name+".txt"), golden.Output(code, errs, out))
				lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				if code != tc.code || len(lines) < 3 || strings.HasPrefix(out, "{") || strings.Contains(out, token) {
					t.Errorf("exit %d (want %d), not a table:\n%s", code, tc.code, out)
				}
				for _, l := range lines {
					if utf8.RuneCountInString(l) > width {
						t.Errorf("a line of %d columns at %d: %q", utf8.RuneCountInString(l), width, l)
					}
				}
			})
		}
		t.Run(tc.name+"_pipe", func(t *testing.T) {
			c1, pipe, _ := runCmd(t, tc.run, corpusSystem(t, 0), tc.stdin, tc.args...)
			c2, nd, _ := runCmd(t, tc.run, corpusSystem(t, 100), tc.stdin, append(tc.args, "--format", "ndjson")...)
			if c1 != tc.code || c2 != tc.code || !strings.HasPrefix(pipe, "{") || pipe != nd {
				t.Errorf("into a pipe (exit %d) and with --format ndjson (exit %d) the records differ:\n%s\n%s", c1, c2, pipe, nd)
			}
		})
	}
}
