package ccstatusline

import (
	"strings"
	"testing"
)

// A line longer than a call can read (a huge tool output) is read on
// across calls from where the last one stopped and then left behind,
// never restarted (issue 31 #10: every call restarted it and the block
// stayed partial forever).
func TestLongLineAcrossCalls(t *testing.T) {
	defer func(n int) { deadlineEvery = n }(deadlineEvery)
	deadlineEvery = 2 // one 256 KB read per call
	root, tr, _, write := twoSessions(t)
	huge := `{"type":"user","uuid":"big","timestamp":"2026-05-02T10:31:00.000Z","message":{"role":"user","content":"` + strings.Repeat("x", 3<<20) + `"}}` + "\n"
	write(tr, assistant("m1", "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 1000000)+huge+
		assistant("m2", "2026-05-02T10:32:00.000Z", "claude-sonnet-5-5", 500000))
	args := []string{"--cache-dir", root + "/cache", "--now", "2026-05-02T12:46:00Z", "--budget", "1ns",
		"--template", "{{usd .block_cost_usd}}{{if .block_partial}}+{{end}}"}
	var got string
	for i := 0; i < 40; i++ {
		code, out, errs := run(t, realPayload(t, tr, nil), args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if got = strings.TrimSpace(out); got == "$3.00" {
			return
		}
	}
	t.Errorf("after 40 calls the block shows %q, want $3.00 (both messages, not partial)", got)
}

// The huge line of an assistant record is never skipped for time.
func TestLongAssistantLineNotSkipped(t *testing.T) {
	defer func(n int) { deadlineEvery = n }(deadlineEvery)
	deadlineEvery = 2
	root, tr, _, write := twoSessions(t)
	big := strings.Replace(assistant("m1", "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 1000000), `"content":[]`, `"content":[{"type":"text","text":"`+strings.Repeat("y", 1<<20)+`"}]`, 1)
	write(tr, big)
	// A first call out of time inside it, then one with time.
	run(t, realPayload(t, tr, nil), "--cache-dir", root+"/cache", "--now", "2026-05-02T12:46:00Z", "--budget", "1ns")
	code, out, _ := run(t, realPayload(t, tr, nil), "--cache-dir", root+"/cache", "--now", "2026-05-02T12:46:00Z", "--budget", "10s",
		"--template", "{{usd .block_cost_usd}}")
	if code != 0 || strings.TrimSpace(out) != "$2.00" {
		t.Errorf("exit %d, %q: the assistant line was skipped", code, out)
	}
}
