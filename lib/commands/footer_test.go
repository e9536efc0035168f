package commands_test

import (
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/commands/ccextract"
)

// TestTotalsSayWhatTheyMiss: a total on a terminal says on stderr, after
// the table, what it is known to miss: sessions whose cost Claude Code
// recorded otherwise (with the reasons), and a model without a price. A
// pipe gets the records alone, whose fields say it.
func TestTotalsSayWhatTheyMiss(t *testing.T) {
	fork := corpusSystem(t, 200, "NO_COLOR", "1")
	for _, c := range []struct {
		name  string
		width int
		args  []string
		want  string
	}{
		{"recorded differs", 200, []string{"usage", "--sum", "session", "--cost", "../../testdata/corpus/claude/projects"},
			"cc-extract: note: sessions whose cost differs from the one Claude Code recorded: 1 (compaction); see the Difference column\n"},
		{"forks", 200, []string{"usage", "--sum", "session", "--cost", "../../testdata/corpus-fork/claude/projects"},
			"cc-extract: note: sessions whose cost differs from the one Claude Code recorded: 3 (fork_base); see the Difference column\n"},
		{"unknown model", 200, []string{"usage", "--sum", "model", "--cost", "../../testdata/corpus-pricing/unknown-model.jsonl"},
			"cc-extract: note: no known price for claude-nonesuch-9: priced as the default model, as Claude Code does (--prices FILE sets one)\n"},
		{"into a pipe", 0, []string{"usage", "--sum", "session", "--cost", "../../testdata/corpus-fork/claude/projects"}, ""},
		{"nothing missed", 200, []string{"usage", "--sum", "day", "--cost", "../../testdata/corpus-fork/claude/projects"}, ""},
	} {
		sys := fork
		if c.width == 0 {
			sys = corpusSystem(t, 0)
		}
		code, out, errs := runCmd(t, ccextract.RunWith, sys, "", c.args...)
		if code != 0 || errs != c.want || out == "" {
			t.Errorf("%s: exit %d, stderr %q, want %q\n%s", c.name, code, errs, c.want, out)
		}
		if c.width > 0 && !strings.Contains(out, "Total") {
			t.Errorf("%s: no table:\n%s", c.name, out)
		}
	}
}
