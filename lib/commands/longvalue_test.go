package commands_test

import (
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/commands"
)

// TestLongValuesCut: a 10,000-character flag value, argument or query is
// named in the error by its first 79 characters and …, never echoed whole
// (lib/quote's one rule, applied where lib/cli quotes a value).
func TestLongValuesCut(t *testing.T) {
	long := strings.Repeat("x", 10000)
	cmd := map[string]commands.Command{}
	for _, c := range commands.All {
		cmd[c.Name] = c
	}
	runs := []struct {
		name string
		args []string
		code int
	}{
		{"cc-extract", []string{"usage", "--since", long}, 2},
		{"cc-extract", []string{"usage", "--until", long}, 2},
		{"cc-extract", []string{"usage", "--format", long}, 2},
		{"cc-extract", []string{"usage", "--tz", long}, 2},
		{"cc-extract", []string{"usage", "--sum", long}, 2},
		{"cc-extract", []string{"usage", "--sum", "week", "--week-start", long}, 2},
		{"cc-extract", []string{long}, 2},
		{"cc-sessions", []string{"--since", long}, 2},
		{"cc-sessions", []string{"--find", long}, 1},
		{"cc-sessions", []string{"--" + long}, 2},
		{"cc-sessions", []string{"--limit", long}, 2},
		{"cc-grep", []string{"--since", long, "foo"}, 2},
		{"cc-render", []string{long}, 2},
		{"cc-profiles", []string{long}, 2},
	}
	for _, r := range runs {
		code, _, errs := runCmd(t, cmd[r.name].RunWith, corpusSystem(t, 0), "", r.args...)
		first, _, _ := strings.Cut(errs, "\n")
		if code != r.code || !strings.Contains(first, strings.Repeat("x", 20)) || !strings.Contains(first, "x…") || len(first) > 400 {
			t.Errorf("%s %s: exit %d (want %d), first line of %d bytes: %.300s", r.name, r.args[0], code, r.code, len(first), first)
		}
	}
}
