package ccstatusline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// TestGolden keeps the record cc-statusline builds (what --jq and
// --template see) in testdata/*.golden: Claude Code 2.1.328's real
// payload over two sessions' transcripts in one 5-hour block, one message
// that cannot be priced, and a payload with rate_limits and no
// context_window. The clock is set through the System seam (testSystem);
// the temp dir is written $ROOT.
func TestGolden(t *testing.T) {
	root, tr, other, write := twoSessions(t)
	write(tr, assistant("m1", "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 1000000)+
		// usage that does not parse: counted in block_unpriced
		strings.Replace(assistant("m2", "2026-05-02T10:31:00.000Z", "claude-sonnet-5-5", 1000), `"input_tokens":1000`, `"input_tokens":"many"`, 1))
	write(other, assistant("m3", "2026-05-02T11:00:00.000Z", "claude-sonnet-5-5", 500000))
	// A budget no slow machine runs out of: block_partial stays false.
	args := []string{"--cache-dir", filepath.Join(root, "cache"), "--now", "2026-05-02T12:46:00Z", "--budget", "1h"}
	limits := realPayload(t, tr, func(p map[string]any) {
		delete(p, "context_window")
		p["rate_limits"] = map[string]any{"five_hour": map[string]any{"used_percentage": 41.6, "resets_at": 1777729560}}
	})
	tests := []struct {
		name    string
		payload []byte
		args    []string
	}{
		{name: "record", payload: realPayload(t, tr, nil), args: []string{"--jq", "."}},
		{name: "line", payload: realPayload(t, tr, nil)},
		{name: "record_rate_limits", payload: limits, args: []string{"--jq", "."}},
		{name: "line_rate_limits", payload: limits},
		{name: "record_no_block", payload: realPayload(t, tr, nil), args: []string{"--jq", ".", "--now", "2026-05-03T12:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, tt.payload, append(append([]string{}, args...), tt.args...)...)
			golden.Check(t, filepath.Join("testdata", tt.name+".golden"), strings.ReplaceAll(golden.Output(code, errs, out), root, "$ROOT"))
		})
	}
	if _, err := os.Stat(filepath.Join(root, "cache")); err != nil {
		t.Errorf("no cache written: %v", err)
	}
}

// TestGoldenBudget keeps the line and the record with --budgets: the
// warn state (the time until the budget at the block's pace), the over
// state, colour with --color always (yellow warn, red over) and the text
// marker alone without it. The day's spend is $3.00 (two sessions, one
// a subagent's call of $0.50) between 10:30 and 11:00.
func TestGoldenBudget(t *testing.T) {
	root, tr, other, write := twoSessions(t)
	write(tr, assistant("m1", "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 1000000))
	write(other, assistant("m3", "2026-05-02T11:00:00.000Z", "claude-sonnet-5-5", 250000))
	sub := filepath.Join(filepath.Dir(tr), "11111111-2222-4333-8444-555555555555", "subagents")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(sub, "agent-a1.jsonl"), strings.Replace(assistant("m2", "2026-05-02T10:45:00.000Z", "claude-sonnet-5-5", 250000),
		`"type":"assistant"`, `"type":"assistant","isSidechain":true`, 1))
	file := func(name, body string) string {
		p := filepath.Join(root, name)
		write(p, body)
		return p
	}
	warn := file("warn.yaml", "budgets:\n  day: 3.5\n  week: 100\n")
	over := file("over.yaml", "budgets:\n  day: 2.5\n  block: 2\n  warn: 0.5\n")
	args := []string{"--cache-dir", filepath.Join(root, "cache"), "--now", "2026-05-02T11:30:00Z", "--budget", "1h"}
	tests := []struct {
		name string
		args []string
	}{
		{"line_budget_warn", []string{"--budgets", warn}},
		{"line_budget_warn_color", []string{"--budgets", warn, "--color", "always"}},
		{"line_budget_over", []string{"--budgets", over}},
		{"line_budget_over_color", []string{"--budgets", over, "--color", "always"}},
		{"record_budget_warn", []string{"--budgets", warn, "--jq", "{spend, budget, forecast}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, realPayload(t, tr, nil), append(append([]string{}, args...), tt.args...)...)
			golden.Check(t, filepath.Join("testdata", tt.name+".golden"), strings.ReplaceAll(golden.Output(code, errs, out), root, "$ROOT"))
		})
	}
}
