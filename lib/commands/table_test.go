package commands_test

import (
	"bytes"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/ccentries"
	"github.com/ccpipe/ccpipe/lib/commands/ccextract"
	"github.com/ccpipe/ccpipe/lib/commands/ccgrep"
	"github.com/ccpipe/ccpipe/lib/commands/ccprofiles"
	"github.com/ccpipe/ccpipe/lib/commands/ccsessions"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

type runWith func(sys cli.System, args []string, stdin io.Reader, stdout, stderr io.Writer) int

// corpusSystem is a System over the bundled corpus, its stdout a terminal
// of the given width (0: not a terminal) as the terminal check sees it.
func corpusSystem(t *testing.T, width int, env ...string) cli.System {
	td, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"CLAUDE_CONFIG_DIR": td + "/corpus/claude"}
	for i := 0; i+1 < len(env); i += 2 {
		vars[env[i]] = env[i+1]
	}
	return cli.System{
		Getenv: func(k string) string { return vars[k] },
		Home:   "/home/dev",
		Now:    func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) },
		Terminal: func(io.Writer) (int, bool) {
			return width, width > 0
		},
	}
}

func runCmd(t *testing.T, run runWith, sys cli.System, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	var in io.Reader
	if stdin != "" {
		in = strings.NewReader(stdin)
	}
	code := run(sys, args, in, &out, &errb)
	return code, out.String(), errb.String()
}

// TestTables keeps a golden file of every table: the usage sums, the
// session lists, the generic tables, csv and tsv; on a terminal (the
// default), with colour unless NO_COLOR, cut to the terminal's width.
func TestTables(t *testing.T) {
	sessions := func(t *testing.T) string {
		_, out, _ := runCmd(t, ccsessions.RunWith, corpusSystem(t, 0), "")
		return out
	}
	for _, tc := range []struct {
		name  string
		run   runWith
		input bool // the corpus sessions on stdin
		width int
		env   []string
		args  []string
	}{
		{"usage_sum_day_cost", ccextract.RunWith, true, 160, []string{"NO_COLOR", "1"}, []string{"usage", "--sum", "day", "--cost", "--subagents"}},
		{"usage_sum_day_model_cost", ccextract.RunWith, true, 160, []string{"NO_COLOR", "1"}, []string{"usage", "--sum", "day,model", "--cost", "--subagents"}},
		{"usage_sum_week", ccextract.RunWith, true, 160, []string{"NO_COLOR", "1"}, []string{"usage", "--sum", "week"}},
		{"usage_sum_month_cost", ccextract.RunWith, true, 160, []string{"NO_COLOR", "1"}, []string{"usage", "--sum", "month", "--cost"}},
		{"usage_sum_session_model_cost", ccextract.RunWith, true, 160, []string{"NO_COLOR", "1"}, []string{"usage", "--sum", "session,model", "--cost", "--subagents"}},
		{"usage_sum_project_day_cost", ccextract.RunWith, true, 160, []string{"NO_COLOR", "1"}, []string{"usage", "--sum", "project,day", "--cost"}},
		{"usage_sum_block_cost", ccextract.RunWith, true, 160, []string{"NO_COLOR", "1"}, []string{"usage", "--sum", "block", "--cost"}},
		{"usage_sum_day_colour", ccextract.RunWith, true, 160, nil, []string{"usage", "--sum", "day", "--cost"}},
		{"usage_sum_day_narrow", ccextract.RunWith, true, 60, []string{"NO_COLOR", "1"}, []string{"usage", "--sum", "session", "--cost"}},
		{"usage_sum_day_format_table_pipe", ccextract.RunWith, true, 0, nil, []string{"usage", "--sum", "day", "--cost", "--format", "table"}},
		{"usage_sum_day_model_csv", ccextract.RunWith, true, 0, nil, []string{"usage", "--sum", "day,model", "--cost", "--format", "csv"}},
		{"usage_sum_week_tsv", ccextract.RunWith, true, 0, nil, []string{"usage", "--sum", "week", "--format", "tsv"}},
		{"shell_generic", ccextract.RunWith, true, 120, []string{"NO_COLOR", "1"}, []string{"shell", "--errors"}},
		{"sessions", ccsessions.RunWith, false, 120, []string{"NO_COLOR", "1"}, nil},
		{"sessions_narrow", ccsessions.RunWith, false, 64, []string{"NO_COLOR", "1"}, nil},
		{"sessions_since", ccsessions.RunWith, false, 120, []string{"NO_COLOR", "1"}, []string{"--since", "2026-11-30T10:47:00Z"}},
		{"sessions_csv", ccsessions.RunWith, false, 0, nil, []string{"--format", "csv", "--limit", "2"}},
		{"grep", ccgrep.RunWith, false, 120, []string{"NO_COLOR", "1"}, []string{"--any", "RESULT", "flaky"}},
		// A config dir at a fixed path: the corpus' path depends on the checkout,
		// and the columns are laid out before it is replaced by $TESTDATA.
		{"profiles", ccprofiles.RunWith, false, 200, []string{"NO_COLOR", "1", "CLAUDE_CONFIG_DIR", "/home/dev/work/claude"}, nil},
		// The layouts of the record kinds, at 80 and 120 columns.
		{"entries_80", ccentries.RunWith, true, 80, []string{"NO_COLOR", "1"}, []string{"--types", "user,assistant"}},
		{"entries_120", ccentries.RunWith, true, 120, []string{"NO_COLOR", "1"}, []string{"--types", "user,assistant,system,attachment"}},
		// A tab in a cell shows as →, at the narrowest and widest layouts (issue 41 item 2).
		{"entries_60", ccentries.RunWith, true, 60, []string{"NO_COLOR", "1"}, []string{"--types", "user,assistant,system,attachment"}},
		{"entries_160", ccentries.RunWith, true, 160, []string{"NO_COLOR", "1"}, []string{"--types", "user,assistant,system,attachment"}},
		// Sub-cent costs keep two significant digits, never $0.00 for money spent (issue 41 item 7).
		{"usage_sum_session_cost_160", ccextract.RunWith, true, 160, []string{"NO_COLOR", "1"}, []string{"usage", "--sum", "session", "--cost"}},
		{"shell_80", ccextract.RunWith, true, 80, []string{"NO_COLOR", "1"}, []string{"shell"}},
		{"shell_120", ccextract.RunWith, true, 120, []string{"NO_COLOR", "1"}, []string{"shell"}},
		{"tools_80", ccextract.RunWith, true, 80, []string{"NO_COLOR", "1"}, []string{"tools"}},
		{"tools_120", ccextract.RunWith, true, 120, []string{"NO_COLOR", "1"}, []string{"tools", "--subagents"}},
		{"prompts_80", ccextract.RunWith, true, 80, []string{"NO_COLOR", "1"}, []string{"prompts", "--all"}},
		{"prompts_120", ccextract.RunWith, true, 120, []string{"NO_COLOR", "1"}, []string{"prompts"}},
		{"files_80", ccextract.RunWith, true, 80, []string{"NO_COLOR", "1"}, []string{"files"}},
		{"texts_80", ccextract.RunWith, true, 80, []string{"NO_COLOR", "1"}, []string{"texts"}},
		{"failures_80", ccextract.RunWith, true, 80, []string{"NO_COLOR", "1"}, []string{"failures"}},
		{"failures_120", ccextract.RunWith, true, 120, []string{"NO_COLOR", "1"}, []string{"failures"}},
		{"conversation_80", ccextract.RunWith, true, 80, []string{"NO_COLOR", "1"}, []string{"conversation"}},
		{"subagents_120", ccextract.RunWith, true, 120, []string{"NO_COLOR", "1"}, []string{"subagents"}},
		{"usage_80", ccextract.RunWith, true, 80, []string{"NO_COLOR", "1"}, []string{"usage", "--cost"}},
		{"usage_120", ccextract.RunWith, true, 120, []string{"NO_COLOR", "1"}, []string{"usage", "--cost", "--subagents"}},
		{"grep_matches_80", ccgrep.RunWith, false, 80, []string{"NO_COLOR", "1"}, []string{"--matches", "RESULT"}},
		{"grep_matches_120", ccgrep.RunWith, false, 120, []string{"NO_COLOR", "1"}, []string{"--matches", "--any", "flaky", "sleep"}},
		// Snippets cut around the hit: never before it (issue 41 item 4).
		{"grep_matches_60", ccgrep.RunWith, false, 60, []string{"NO_COLOR", "1"}, []string{"--matches", "--any", "RESULT", "DENY-REASON", "sleep"}},
		{"grep_matches_160", ccgrep.RunWith, false, 160, []string{"NO_COLOR", "1"}, []string{"--matches", "--any", "RESULT", "DENY-REASON", "sleep"}},
		// A record no layout knows: long text cut, then trailing columns left
		// out with a footer naming them.
		{"generic_fit_80", ccentries.RunWith, true, 80, []string{"NO_COLOR", "1"}, []string{"--types", "user", "--jq", "{uuid, timestamp, type, cwd, version, gitBranch, text: .message.content, userType, entrypoint, promptId}", "--format", "table"}},
		{"generic_fit_120", ccentries.RunWith, true, 120, []string{"NO_COLOR", "1"}, []string{"--types", "user", "--jq", "{uuid, timestamp, type, cwd, version, gitBranch, text: .message.content, userType, entrypoint, promptId}", "--format", "table"}},
		{"entries_jq_table", ccentries.RunWith, true, 0, []string{"COLUMNS", "90"}, []string{"--types", "user", "--format", "table", "--jq", "{timestamp, type, text: .message.content}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sys := corpusSystem(t, tc.width, tc.env...)
			in := ""
			if tc.input {
				in = sessions(t)
			}
			code, out, errs := runCmd(t, tc.run, sys, in, tc.args...)
			td, _ := filepath.Abs("../../testdata")
			got := strings.ReplaceAll(golden.Output(code, errs, out), td, "$TESTDATA")
			golden.Check(t, filepath.Join("testdata", "tables", tc.name+".txt"), got)
			// No line is wider than the terminal: text is cut, then columns
			// are left out. (Only a first column of numbers wider than the
			// terminal could not fit; no case here has one.)
			if tc.width > 0 {
				for _, l := range strings.Split(out, "\n") {
					if n := utf8.RuneCountInString(l); n > tc.width {
						t.Errorf("a line of %d columns at width %d: %q", n, tc.width, l)
					}
				}
			}
			if tc.width > 0 || slicesContains(tc.args, "table") {
				if !strings.Contains(out, "\n") || code != 0 {
					t.Errorf("no table: exit %d, %q", code, out)
				}
			}
		})
	}
}

func slicesContains(l []string, s string) bool {
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}

// TestPipeStaysNDJSON checks that into a pipe each command writes the
// very bytes --format ndjson writes, and those are NDJSON: the default of
// a non-terminal did not move.
func TestPipeStaysNDJSON(t *testing.T) {
	sessions := func(t *testing.T) string {
		_, out, _ := runCmd(t, ccsessions.RunWith, corpusSystem(t, 0), "")
		return out
	}
	for _, tc := range []struct {
		name  string
		run   runWith
		input bool
		args  []string
	}{
		{"extract sum", ccextract.RunWith, true, []string{"usage", "--sum", "day,model", "--cost", "--subagents"}},
		{"extract usage", ccextract.RunWith, true, []string{"usage", "--cost"}},
		{"sessions", ccsessions.RunWith, false, nil},
		{"grep", ccgrep.RunWith, false, []string{"RESULT"}},
		{"profiles", ccprofiles.RunWith, false, nil},
		{"entries", ccentries.RunWith, true, []string{"--types", "user"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := ""
			if tc.input {
				in = sessions(t)
			}
			c1, pipe, _ := runCmd(t, tc.run, corpusSystem(t, 0), in, tc.args...)
			c2, nd, _ := runCmd(t, tc.run, corpusSystem(t, 100), in, append(tc.args, "--format", "ndjson")...)
			c3, jq, _ := runCmd(t, tc.run, corpusSystem(t, 100), in, append(tc.args, "--jq", ".")...)
			if c1 != 0 || pipe == "" || pipe != nd || c2 != 0 || c3 != 0 {
				t.Fatalf("pipe (exit %d) and --format ndjson (exit %d) differ:\n%s\n%s", c1, c2, pipe, nd)
			}
			if strings.Count(pipe, "\n") != strings.Count(jq, "\n") || !strings.HasPrefix(pipe, "{") || !strings.HasPrefix(jq, "{") {
				t.Errorf("a terminal with --jq prints jq's output, one record a line:\n%s", jq)
			}
		})
	}
}

// TestArchiveTable (issue 41 item 13): cc-entries --archive on a terminal
// lists each file copied with its sizes, the source and the copy cut on
// the left, so the session id or file name that tells the rows apart stays
// in sight at 60 and 160 columns.
func TestArchiveTable(t *testing.T) {
	_, sessions, _ := runCmd(t, ccsessions.RunWith, corpusSystem(t, 0), "")
	for _, width := range []int{60, 160} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "archive")
			code, out, errs := runCmd(t, ccentries.RunWith, corpusSystem(t, width, "NO_COLOR", "1"), sessions, "--archive", dir)
			td, _ := filepath.Abs("../../testdata")
			got := strings.ReplaceAll(strings.ReplaceAll(golden.Output(code, errs, out), td, "$TESTDATA"), dir, "$ARCHIVE")
			golden.Check(t, filepath.Join("testdata", "tables", "archive_"+strconv.Itoa(width)+".txt"), got)
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if code != 0 || len(lines) < 10 || !strings.HasPrefix(lines[0], "Status") {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			seen := map[string]bool{}
			for _, l := range lines[1:] {
				f := strings.Fields(l)
				if utf8.RuneCountInString(l) > width || len(f) != 5 || seen[f[3]] || seen[f[4]] {
					t.Errorf("a row too wide or not told apart from another: %q", l)
				}
				seen[f[3]], seen[f[4]] = true, true
			}
		})
	}
}
