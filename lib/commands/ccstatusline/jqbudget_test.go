package ccstatusline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --budget covers --jq: a --jq that never ends stops at the budget with
// one clear error and exit 1, never hangs the status line (issue 36).
func TestBudgetCoversJQ(t *testing.T) {
	root := t.TempDir()
	tr := filepath.Join(root, "projects", "p", "11111111-2222-4333-8444-555555555555.jsonl")
	os.MkdirAll(filepath.Dir(tr), 0o755)
	os.WriteFile(tr, []byte(assistant("m1", "2026-05-02T10:30:00.000Z", "claude-opus-4-6", 250000)), 0o644)
	p := realPayload(t, tr, nil)
	// The stderr below proves the budget stopped it; a hang is the test
	// binary's timeout (a wall-clock bound here flakes under -race and load).
	code, out, errs := run(t, p, "--cache-dir", filepath.Join(root, "c"), "--budget", "200ms", "--jq", "def f: f; f")
	if code != 1 || out != "" || !strings.Contains(errs, "cc-statusline: --jq: record 1: stopped: still running after 200ms") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
