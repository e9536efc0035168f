package commands_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/commands/ccextract"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
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

// TestTotalsSayMissingSessions: with nothing piped (every session), a
// total on a terminal counts the sessions Claude Code ran that left no
// readable transcript (history.jsonl names one, the cleanup period not
// over), which it cannot include; a swept one is not counted.
func TestTotalsSayMissingSessions(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "claude")
	golden.CopyTree(t, "../../testdata/corpus-fork/claude", cfg)
	// 1796115600000 is 2026-12-01T08:00:00Z; 1790000000000, 2026-09-21.
	history := `{"display":"nested","timestamp":1796115600000,"project":"/home/dev/p","sessionId":"22222222-0000-4000-8000-000000000001"}` + "\n" +
		`{"display":"old","timestamp":1790000000000,"project":"/home/dev/p","sessionId":"22222222-0000-4000-8000-000000000002"}` + "\n"
	if err := os.WriteFile(filepath.Join(cfg, "history.jsonl"), []byte(history), 0o644); err != nil {
		t.Fatal(err)
	}
	sys := corpusSystem(t, 200, "NO_COLOR", "1", "CLAUDE_CONFIG_DIR", cfg)
	code, out, errs := runCmd(t, ccextract.RunWith, sys, "", "usage", "--sum", "day", "--cost")
	want := "cc-extract: note: sessions Claude Code ran that left no readable transcript, not in these totals: 1 (cc-sessions --missing lists them)\n"
	if code != 0 || errs != want || !strings.Contains(out, "Total") {
		t.Errorf("exit %d, stderr %q, want %q\n%s", code, errs, want, out)
	}
	// Into a pipe: the records alone.
	if code, _, errs := runCmd(t, ccextract.RunWith, corpusSystem(t, 0, "CLAUDE_CONFIG_DIR", cfg), "", "usage", "--sum", "day", "--cost"); code != 0 || errs != "" {
		t.Errorf("pipe: exit %d, stderr %q", code, errs)
	}
}
