package ccentries

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// TestGolden keeps cc-entries' output in testdata/golden: its own records
// (--archive's, and --diagnostics' on stderr with the transcript lines
// left out by --jq empty) in own/, and transcript lines as Claude Code
// wrote them, with cc_source (--with-source, --subagents) and a
// diagnostics record beside them, in verbatim/. The clock is fixed; temp
// paths are written $TMP.
func TestGolden(t *testing.T) {
	sys := cli.System{Home: t.TempDir(), Now: func() time.Time { return time.Date(2026, 5, 1, 10, 1, 0, 0, time.UTC) }}
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// A config dir of one session, with a subagent and a tool result,
	// to archive.
	src := filepath.Dir(session)
	cfg := filepath.Join(tmp, "claude", "projects", "-home-dev-work-alpha")
	err = filepath.WalkDir(filepath.Join(src), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(cfg, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(cfg, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(cfg, filepath.Base(session))
	archive := filepath.Join(tmp, "archive")
	raw, err := os.ReadFile(session)
	if err != nil {
		t.Fatal(err)
	}
	mal := td + "/malformed/"
	main := func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		return RunWith(sys, args, stdin, stdout, stderr)
	}
	tests := []struct {
		name, stdin string
		args        []string
		again       bool // run it once before (so it holds alone with -run)
	}{
		{name: "own/archive", args: []string{"--archive", archive, copied}},
		{name: "own/archive_again", args: []string{"--archive", archive, copied}, again: true},
		{name: "own/diagnostics", args: []string{"--diagnostics", "--jq", "empty", "--max-line", "300", mal + "wrongtypes.jsonl", mal + "unknown.jsonl", mal + "truncated.jsonl", mal + "garbage.jsonl"}},
		{name: "own/diagnostics_types", args: []string{"--diagnostics", "--types", "user", "--jq", "empty", mal + "garbage.jsonl"}},
		{name: "verbatim/subagents", args: []string{"--subagents", session}},
		{name: "verbatim/with_source_stdin", stdin: string(raw), args: []string{"--with-source", "--tail", "2", "-"}},
		{name: "verbatim/session_record_branch", stdin: `{"session_id":"11111111-2222-4333-8444-555555555555","transcript_path":"` + copied + `"}` + "\n", args: []string{"--with-source", "--branch"}},
		{name: "verbatim/diagnostics", args: []string{"--diagnostics", "--types", "assistant", mal + "wrongtypes.jsonl"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.again {
				golden.Run(main, tt.args, tt.stdin)
			}
			got := strings.ReplaceAll(golden.Run(main, tt.args, tt.stdin), tmp, "$TMP")
			golden.Check(t, filepath.Join("testdata", "golden", tt.name+".golden"), got)
		})
	}
}
