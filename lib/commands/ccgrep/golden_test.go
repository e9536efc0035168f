package ccgrep

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// TestGolden keeps cc-grep's output over the real-CLI corpus
// (testdata/corpus/claude) in testdata/*.golden: the listing's session
// records and --matches of every kind (transcript, subagent,
// tool_result), and a stdin record passed through with its matches.
func TestGolden(t *testing.T) {
	corpus, main := corpusRun(t, t.TempDir())
	alpha := filepath.Join(corpus, "projects", "-home-dev-projects-alpha", "c0a1f001-0000-4000-8000-000000000001.jsonl")
	gamma := func(n string) string {
		return filepath.Join(corpus, "projects", "-home-dev-projects-gamma", "c0a1f00"+n+"-0000-4000-8000-00000000000"+n+".jsonl")
	}
	// --sort recent: input oldest first; the --active-style record (f005)
	// is dated by its updated_at.
	recent := `{"transcript_path":"` + alpha + `","last_activity_at":"2026-01-01T00:00:00Z"}` + "\n" +
		`{"transcript_path":"` + gamma("6") + `","last_activity_at":"2026-02-01T00:00:00Z"}` + "\n" +
		`{"transcript_path":"` + gamma("5") + `","updated_at":"2026-03-01T00:00:00Z"}` + "\n"
	tests := []struct {
		name, stdin string
		args        []string
	}{
		// 39999 is in a stored tool result only, fg-sub-ok in a subagent
		// transcript and its parent.
		{name: "corpus_matches", args: []string{"--matches", "--any", "39999", "fg-sub-ok", "--workers", "1"}},
		{name: "corpus_all_terms", args: []string{"Delegate", "fg-sub-ok"}},
		{name: "corpus_none", args: []string{"no-such-term-anywhere"}},
		{name: "stdin_matches", stdin: `{"transcript_path":"` + alpha + `","note":"kept as given"}` + "\n", args: []string{"--matches", "39999"}},
		// "error" is in every session's bytes (is_error, the system
		// prompt), said in three.
		{name: "corpus_error", args: []string{"error"}},
		{name: "corpus_error_raw", args: []string{"--raw", "error"}},
		// Where it was said, with 20 characters of context; case folded.
		{name: "corpus_error_matches", args: []string{"--matches", "-C", "20", "ERROR"}},
		// AND over two records of one session; --any over sessions.
		{name: "corpus_matches_and", args: []string{"--matches", "periwinkle", "word"}},
		// A hook's deny reason (tool_result), a queued prompt (attachment).
		{name: "corpus_matches_any", args: []string{"--matches", "--any", "-C", "15", "DENY-REASON", "queued-follow-up"}},
		// Newest activity first, the records as given; the same order
		// for their hits, and through --jq.
		{name: "stdin_sort_recent", stdin: recent, args: []string{"--sort", "recent", "--any", "error", "39999"}},
		{name: "stdin_sort_recent_matches", stdin: recent, args: []string{"--sort", "recent", "--matches", "-C", "10", "--any", "error", "39999"}},
		{name: "stdin_sort_recent_jq", stdin: recent, args: []string{"--sort", "recent", "--any", "error", "39999", "--jq", ".transcript_path", "-r"}},
		{name: "stdin_sort_recent_scan", stdin: recent, args: []string{"--sort", "recent", "--no-cache", "--any", "error", "39999", "--jq", ".transcript_path", "-r"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := golden.Corpus(golden.Run(main, tt.args, tt.stdin), corpus)
			golden.Check(t, filepath.Join("testdata", tt.name+".golden"), got)
		})
	}
}

// corpusRun returns the real-CLI corpus (testdata/corpus/claude) and
// cc-grep over it with home as its home (its search index under it),
// or skips when the corpus is not generated.
func corpusRun(t *testing.T, home string) (string, func(args []string, stdin io.Reader, stdout, stderr io.Writer) int) {
	t.Helper()
	corpus, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "corpus", "claude"))
	if err != nil {
		t.Fatal(err)
	}
	if r, err := filepath.EvalSymlinks(corpus); err == nil {
		corpus = r
	}
	if _, err := os.Stat(filepath.Join(corpus, "projects")); err != nil {
		t.Skip("testdata/corpus/claude is not generated yet")
	}
	sys := cli.System{Home: home, Getenv: func(k string) string {
		return map[string]string{"TMPDIR": "/fixture-tmp", "CLAUDE_CONFIG_DIR": corpus}[k]
	}}
	return corpus, func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		return RunWith(sys, args, stdin, stdout, stderr)
	}
}
