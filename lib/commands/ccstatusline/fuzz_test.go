package ccstatusline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzStatusLine: any payload and any transcript bytes give one line or a
// clear error, never a panic.
func FuzzStatusLine(f *testing.F) {
	real, _ := os.ReadFile("testdata/payload-2.1.328.json")
	f.Add(real, []byte(assistant("m1", "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 1000)))
	f.Add([]byte(`{"rate_limits":{"five_hour":{"used_percentage":"x","resets_at":"soon"}}}`), []byte("{\"type\":\"assistant\"\n\x00"))
	f.Fuzz(func(t *testing.T, payload, transcript []byte) {
		dir := t.TempDir()
		tr := filepath.Join(dir, "projects", "p", "11111111-2222-4333-8444-555555555555.jsonl")
		os.MkdirAll(filepath.Dir(tr), 0o755)
		os.WriteFile(tr, transcript, 0o644)
		p := bytes.Replace(payload, []byte("/home/dev/claude/projects/-home-dev-projects-status/9cc87263-c2ee-43e0-b8a9-e8e91c0823e9.jsonl"), []byte(tr), 1)
		var out, errb bytes.Buffer
		sys, args := testSystem(t, []string{"--cache-dir", filepath.Join(dir, "c"), "--now", "2026-05-02T12:00:00Z"})
		code := RunWith(sys, args, bytes.NewReader(p), &out, &errb)
		if code == 0 && strings.Count(out.String(), "\n") != 1 {
			t.Fatalf("exit 0 with %q", out.String())
		}
		if code != 0 && errb.Len() == 0 {
			t.Fatalf("exit %d without a message", code)
		}
	})
}
