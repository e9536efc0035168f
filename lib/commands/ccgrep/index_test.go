package ccgrep

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// TestIndexCLI holds cc-grep's answers from its index (built by the
// first run, read by the next) to the scan's (--no-cache), byte for
// byte, over the real-CLI corpus: sessions, --matches, --jq, --any, AND,
// stdin records, window flags.
func TestIndexCLI(t *testing.T) {
	home := t.TempDir()
	corpus, main := corpusRun(t, home)
	alpha := filepath.Join(corpus, "projects", "-home-dev-projects-alpha", "c0a1f001-0000-4000-8000-000000000001.jsonl")
	old := announceMin
	announceMin = 0
	t.Cleanup(func() { announceMin = old })
	tests := []struct {
		stdin string
		args  []string
	}{
		{args: []string{"error"}},
		{args: []string{"ERROR", "the"}},
		{args: []string{"--any", "39999", "fg-sub-ok", "periwinkle"}},
		{args: []string{"--matches", "-C", "20", "ERROR"}},
		{args: []string{"--matches", "--any", "DENY-REASON", "queued-follow-up"}},
		{args: []string{"Delegate", "fg-sub-ok", "--jq", ".session_id", "-r"}},
		{args: []string{"--matches", "periwinkle", "word", "--jq", ".where"}},
		{args: []string{"no-such-term-anywhere"}},
		{args: []string{"--since", "2020-01-01", "error"}},
		{args: []string{"e"}}, // shorter than a trigram: the scan
		{stdin: `{"transcript_path":"` + alpha + `","note":"kept"}` + "\n", args: []string{"--matches", "39999"}},
		{stdin: `{"transcript_path":"` + alpha + `"}` + "\n", args: []string{"the"}},
	}
	run := func(stdin string, args ...string) string {
		return golden.Corpus(golden.Run(main, args, stdin), corpus)
	}
	first := true
	for _, tt := range tests {
		want := run(tt.stdin, append([]string{"--no-cache"}, tt.args...)...)
		cold := run(tt.stdin, tt.args...)
		if first && tt.stdin == "" {
			// The first run builds the index and says so on stderr.
			if !strings.Contains(cold, "building the search index") {
				t.Fatalf("the first run did not say it builds the index:\n%s", cold)
			}
			i := strings.Index(cold, "cc-grep: building the search index")
			j := strings.IndexByte(cold[i:], '\n')
			cold = cold[:i] + cold[i+j+1:]
			first = false
		}
		warm := run(tt.stdin, tt.args...)
		if cold != want || warm != want {
			t.Fatalf("cc-grep %q\nscan:\n%s\nfirst run:\n%s\nfrom the index:\n%s", tt.args, want, cold, warm)
		}
	}
	segs, _ := filepath.Glob(filepath.Join(home, ".cache", "ccpipe", "grep-index*", "*.trgm"))
	if len(segs) == 0 {
		t.Fatal("no index was written")
	}
}
