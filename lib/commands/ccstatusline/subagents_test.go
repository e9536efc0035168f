package ccstatusline

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompressedSessionSubagents: the subagents of a session whose main
// transcript is compressed (X.jsonl.gz) lie in X/subagents, as for a
// plain one, and count in the block; a compressed subagent transcript
// and a .meta.json beside it are not read as transcripts.
func TestCompressedSessionSubagents(t *testing.T) {
	root, tr, other, write := twoSessions(t)
	write(tr, assistant("m1", "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 1000000))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(assistant("m2", "2026-05-02T10:40:00.000Z", "claude-sonnet-5-5", 0)))
	zw.Close()
	write(other+".gz", gz.String())
	sub := filepath.Join(strings.TrimSuffix(other, ".jsonl"), "subagents")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(sub, "agent-a1.jsonl"), assistant("m3", "2026-05-02T11:00:00.000Z", "claude-sonnet-5-5", 500000))
	write(filepath.Join(sub, "agent-a1.meta.json"), `{"agentType":"general-purpose"}`)
	write(filepath.Join(sub, "agent-a2.jsonl.gz"), gz.String())
	args := []string{"--cache-dir", filepath.Join(root, "cache"), "--now", "2026-05-02T12:46:00Z", "--no-cache", "--template", "{{usd .block_cost_usd}}"}
	code, out, errs := run(t, realPayload(t, tr, nil), args...)
	if code != 0 || out != "$3.00\n" {
		t.Fatalf("exit %d, %q (want $2.00 of the session and $1.00 of the subagent), %s", code, out, errs)
	}
}
