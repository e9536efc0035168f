package commands_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/ccentries"
	"github.com/ccpipe/ccpipe/lib/commands/ccextract"
	"github.com/ccpipe/ccpipe/lib/commands/ccgrep"
	"github.com/ccpipe/ccpipe/lib/commands/ccsessions"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// TestSincePrunesOldTranscripts keeps the --since prune (a transcript
// last written before the window is not opened: sessions.Session.
// WrittenBefore) byte-identical to its slow twin, the same corpus without
// those transcripts at all. The pruned transcripts keep their records
// (stamped inside the window) under an mtime set back a month, so that
// reading them would change every answer; --until alone, which prunes
// nothing, shows that it does.
func TestSincePrunesOldTranscripts(t *testing.T) {
	root := t.TempDir()
	// The same path in both, so that the answers can be the same bytes.
	pruned, twin := filepath.Join(root, "a", "claude"), filepath.Join(root, "b", "claude")
	golden.CopyTree(t, "../../testdata/corpus/claude", pruned)
	golden.CopyTree(t, "../../testdata/corpus/claude", twin)
	old := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range []string{
		"projects/-home-dev-projects-beta/c0a1f003-0000-4000-8000-000000000003",
		"projects/-home-dev-projects-gamma/c0a1f006-0000-4000-8000-000000000006",
	} {
		if err := os.Chtimes(filepath.Join(pruned, f+".jsonl"), old, old); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{f + ".jsonl", f} {
			if err := os.RemoveAll(filepath.Join(twin, p)); err != nil {
				t.Fatal(err)
			}
		}
	}
	system := func(cfg string) cli.System {
		vars := map[string]string{"CLAUDE_CONFIG_DIR": cfg, "XDG_CACHE_HOME": filepath.Join(filepath.Dir(cfg), "cache")}
		return cli.System{
			Getenv: func(k string) string { return vars[k] },
			Home:   filepath.Join(root, "home"),
			Now:    func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) },
			Terminal: func(io.Writer) (int, bool) {
				return 0, false
			},
		}
	}
	// The corpus ran 2026-11-30 10:46-10:47 UTC; the copies' mtimes are
	// today's, later than both windows.
	since := []string{"--since", "2026-11-30T10:40:00Z"}
	until := []string{"--until", "2100-01-01"}
	for _, c := range []struct {
		name string
		run  runWith
		args []string
	}{
		{"cc-sessions", ccsessions.RunWith, nil},
		{"cc-sessions --no-cache", ccsessions.RunWith, []string{"--no-cache"}},
		{"cc-entries", ccentries.RunWith, []string{"--subagents"}},
		{"cc-extract usage", ccextract.RunWith, []string{"usage"}},
		{"cc-extract usage --sum day", ccextract.RunWith, []string{"usage", "--sum", "day"}},
		{"cc-extract tools", ccextract.RunWith, []string{"tools"}},
		{"cc-extract prompts", ccextract.RunWith, []string{"prompts"}},
		{"cc-grep", ccgrep.RunWith, []string{"--any", "RESULT", "prompt"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			answer := func(cfg string, window []string) string {
				t.Helper()
				code, out, stderr := runCmd(t, c.run, system(cfg), "", append(append([]string{}, c.args...), window...)...)
				if code != 0 {
					t.Fatalf("%s %v on %s: exit %d: %s", c.name, window, filepath.Base(cfg), code, stderr)
				}
				return out
			}
			want := answer(twin, since)
			got := answer(pruned, since)
			got = strings.ReplaceAll(got, pruned, twin)
			if got != want {
				t.Errorf("--since on the corpus with old transcripts:\n%s\nwithout them:\n%s", got, want)
			}
			if want == "" {
				t.Fatal("no answer without the old transcripts: nothing compared")
			}
			if unpruned := strings.ReplaceAll(answer(pruned, until), pruned, twin); unpruned == want {
				t.Errorf("the old transcripts do not change the answer when read: the prune is not tested")
			}
		})
	}
}
