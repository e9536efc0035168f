package ccextract

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
)

// TestBudgetsExit: cc-extract usage --budgets FILE exits 1 with one
// stderr line naming every period at or past its limit, with the
// figures, after writing its records as usual; a period past its warn
// fraction is a stderr line and exit 0; a file without a budgets
// section is a usage error (exit 2). The spend is the messages read,
// subagents' included: $2.50 today (2026-05-06), $1 on the 1st.
func TestBudgetsExit(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "projects", "-home-dev-p")
	id := "11111111-2222-4333-8444-555555555555"
	sub := filepath.Join(proj, id, "subagents")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	msg := func(mid, ts string, in int, side bool) string {
		return fmt.Sprintf(`{"type":"assistant","isSidechain":%v,"uuid":"u-%s","timestamp":"%s","sessionId":"%s","requestId":"r-%s","message":{"id":"%s","model":"claude-sonnet-5-5","content":[],"usage":{"input_tokens":%d,"output_tokens":0}}}`+"\n",
			side, mid, ts, id, mid, mid, in)
	}
	write := func(p, s string) string {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// claude-sonnet-5-5: $2 per million input tokens.
	write(filepath.Join(proj, id+".jsonl"), msg("m0", "2026-05-01T10:00:00.000Z", 500000, false)+
		msg("m1", "2026-05-06T09:30:00.000Z", 500000, false)+msg("m2", "2026-05-06T10:00:00.000Z", 500000, false))
	write(filepath.Join(sub, "agent-a1.jsonl"), msg("m3", "2026-05-06T10:10:00.000Z", 250000, true))
	sys := cli.System{Getenv: func(string) string { return "" }, Home: dir, Zone: time.UTC,
		Now: func() time.Time { return time.Date(2026, 5, 6, 11, 0, 0, 0, time.UTC) }}
	over := write(filepath.Join(dir, "over.yaml"), "budgets:\n  day: 2.5\n  month: 3\n  week: 10\n")
	warn := write(filepath.Join(dir, "warn.yaml"), "budgets:\n  day: 3\n")
	none := write(filepath.Join(dir, "none.yaml"), "rules: []\n")
	args := func(f string) []string {
		return []string{"usage", "--sum", "day", "--no-cache", "--format", "ndjson", "--budgets", f, filepath.Join(dir, "projects")}
	}
	out, errs, code := run(t, sys, args(over)...)
	if code != 1 || errs != "cc-extract: over budget: day $2.50 of $2.50, month $3.50 of $3.00\n" {
		t.Errorf("over: exit %d, stderr %q", code, errs)
	}
	if strings.Count(out, "\n") != 2 || !strings.Contains(out, `"date":"2026-05-06"`) {
		t.Errorf("over: the records are not written as usual:\n%s", out)
	}
	if _, errs, code := run(t, sys, args(warn)...); code != 0 || errs != "cc-extract: budget warn: day $2.50 of $3.00\n" {
		t.Errorf("warn: exit %d, stderr %q", code, errs)
	}
	if _, errs, code := run(t, sys, args(none)...); code != 2 || !strings.Contains(errs, `no "budgets:" section`) {
		t.Errorf("no section: exit %d, stderr %q", code, errs)
	}
	if _, errs, code := run(t, sys, "prompts", "--budgets", over, filepath.Join(dir, "projects")); code != 2 || !strings.Contains(errs, "--budgets applies to usage") {
		t.Errorf("prompts: exit %d, stderr %q", code, errs)
	}
}
