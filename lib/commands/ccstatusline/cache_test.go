package ccstatusline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplacedTranscript: a transcript replaced by another, longer file
// (a new inode, other bytes before the cached offset) is read from its
// start, not from where the old one was read to.
func TestReplacedTranscript(t *testing.T) {
	root, tr, _, write := twoSessions(t)
	write(tr, assistant("m1", "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 1000000))
	cache := filepath.Join(root, "cache")
	block := func(extra ...string) string {
		t.Helper()
		args := append([]string{"--cache-dir", cache, "--now", "2026-05-02T12:46:00Z", "--recheck", "0s", "--template", "{{usd .block_cost_usd}}"}, extra...)
		code, out, errs := run(t, realPayload(t, tr, nil), args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		return strings.TrimSpace(out)
	}
	if got := block(); got != "$2.00" {
		t.Fatalf("first call: %s", got)
	}
	next := tr + ".new"
	write(next, assistant("m9", "2026-05-02T10:31:00.000Z", "claude-sonnet-5-5", 250000)+
		assistant("m8", "2026-05-02T10:32:00.000Z", "claude-sonnet-5-5", 250000))
	if err := os.Rename(next, tr); err != nil {
		t.Fatal(err)
	}
	if got := block(); got != "$1.00" {
		t.Errorf("after the transcript was replaced: %s, want $1.00", got)
	}
	if got := block("--no-cache"); got != "$1.00" {
		t.Errorf("--no-cache: %s", got)
	}
	if _, err := os.Stat(filepath.Join(cache, "statusline")); err == nil {
		t.Errorf("--cache-dir not used as given")
	}
}
