package ccsessions

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
)

// TestCleanupWarning: sessions that Claude Code's cleanup deletes within a
// week (cleanupPeriodDays from settings.json) and that no archive holds
// are warned about once on stderr; archiving them ends the warning, and
// the listing itself is the same either way.
func TestCleanupWarning(t *testing.T) {
	root := t.TempDir()
	cfg, arch := filepath.Join(root, "claude"), filepath.Join(root, "arch")
	corpus := filepath.Join("..", "..", "..", "testdata", "corpus", "claude", "projects", "-home-dev-projects-gamma")
	proj := filepath.Join(cfg, "projects", "-home-dev-projects-gamma")
	os.MkdirAll(proj, 0o755)
	now := time.Date(2026, 12, 20, 12, 0, 0, 0, time.UTC)
	for id, age := range map[string]int{"c0a1f004-0000-4000-8000-000000000004": 5, "c0a1f005-0000-4000-8000-000000000005": 4, "c0a1f007-0000-4000-8000-000000000007": 1} {
		b, err := os.ReadFile(filepath.Join(corpus, id+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(proj, id+".jsonl")
		os.WriteFile(p, b, 0o644)
		mt := now.Add(-time.Duration(age) * 24 * time.Hour)
		os.Chtimes(p, mt, mt)
	}
	run := func(settings, archive string) (string, string) {
		t.Helper()
		if settings != "" {
			os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(settings), 0o644)
		}
		sys := cli.System{Home: filepath.Join(root, "home"), Now: func() time.Time { return now }, Getenv: func(k string) string {
			return map[string]string{"CLAUDE_CONFIG_DIR": cfg, "CCPIPE_ARCHIVE": archive}[k]
		}}
		var out, errb bytes.Buffer
		if code := RunWith(sys, []string{"--jq", ".session_id", "-r"}, nil, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		return out.String(), errb.String()
	}
	list, stderr := run("", "")
	if stderr != "" {
		t.Errorf("default 30 days, sessions 5 days old: %q", stderr)
	}
	_, stderr = run(`{"cleanupPeriodDays": 10}`, "")
	if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "2 sessions have no archive copy") || !strings.Contains(stderr, "cleanupPeriodDays 10") {
		t.Errorf("10 days, two sessions older than 3: %q", stderr)
	}
	// Archive one of them: one left to warn about.
	os.MkdirAll(filepath.Join(arch, "-home-dev-projects-gamma"), 0o755)
	os.WriteFile(filepath.Join(arch, "-home-dev-projects-gamma", "c0a1f004-0000-4000-8000-000000000004.jsonl.zst"), []byte{0x28, 0xb5, 0x2f, 0xfd}, 0o644)
	got, stderr := run("", arch)
	if !strings.Contains(stderr, "1 sessions have no archive copy") {
		t.Errorf("one archived: %q", stderr)
	}
	if got != list {
		t.Errorf("the listing changed with the archive:\n%s\nwant\n%s", got, list)
	}
	_, stderr = run(`{"cleanupPeriodDays": 0}`, "")
	if stderr != "" {
		t.Errorf("cleanupPeriodDays 0: %q", stderr)
	}
}
