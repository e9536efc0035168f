package cchook

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// spendSession writes a config dir with one session whose messages cost
// $2 (today, at 09:30 and 10:00 UTC on 2026-05-06) and $1 (on the 1st of
// the month), a subagent's call of $0.50 today (10:10), and returns its
// transcript.
func spendSession(t *testing.T) (tr string) {
	t.Helper()
	proj := filepath.Join(t.TempDir(), "projects", "-home-dev-p")
	id := "11111111-2222-4333-8444-555555555555"
	tr = filepath.Join(proj, id+".jsonl")
	sub := filepath.Join(proj, id, "subagents")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	// claude-sonnet-5-5: $2 per million input tokens.
	msg := func(mid, ts string, in int, side bool) string {
		return fmt.Sprintf(`{"type":"assistant","isSidechain":%v,"uuid":"u-%s","timestamp":"%s","sessionId":"%s","requestId":"r-%s","message":{"id":"%s","model":"claude-sonnet-5-5","content":[],"usage":{"input_tokens":%d,"output_tokens":0}}}`+"\n",
			side, mid, ts, id, mid, mid, in)
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(tr, msg("m0", "2026-05-01T10:00:00.000Z", 500000, false)+msg("m1", "2026-05-06T09:30:00.000Z", 500000, false)+
		msg("m2", "2026-05-06T10:00:00.000Z", 500000, false))
	write(filepath.Join(sub, "agent-a1.jsonl"), msg("m3", "2026-05-06T10:10:00.000Z", 250000, true))
	return tr
}

// A rule file's budgets section and an over_budget rule block a prompt
// once the day's spend (subagents included) reaches the day budget, the
// figure in the reason; under it, the prompt goes on; $spend reads the
// same figures in an if condition.
func TestBudgetBlocksPrompt(t *testing.T) {
	tr := spendSession(t)
	dir := t.TempDir()
	sys := testSystem
	sys.Now = func() time.Time { return time.Date(2026, 5, 6, 11, 0, 0, 0, time.UTC) }
	sys.Getenv = func(k string) string {
		if k == "XDG_CACHE_HOME" {
			return filepath.Join(dir, "cache")
		}
		return ""
	}
	payload, _ := json.Marshal(map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": "11111111-2222-4333-8444-555555555555",
		"transcript_path": tr, "cwd": "/home/dev/p", "prompt": "go on"})
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rule := "rules:\n  - events: UserPromptSubmit\n    over_budget: day\n    decision: block\n    reason: Day budget reached.\n"
	over := file("over.yaml", "budgets:\n  day: 2.5\n"+rule)
	under := file("under.yaml", "budgets:\n  day: 2.6\n"+rule)
	jqRule := file("jq.yaml", "budgets: {month: 100}\nrules:\n  - events: UserPromptSubmit\n"+
		"    if: '$spend.month > 3.4 and $spend.week < 2.6 and $spend.session > 3.49 and $budgets.month == 100'\n    decision: block\n    reason: jq saw it.\n")
	run := func(rules string) (int, string, string) {
		return golden.Call(func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return RunWith(sys, args, stdin, stdout, stderr)
		}, string(payload), "run", rules)
	}
	code, out, errs := run(over)
	want := `{"decision":"block","reason":"Day budget reached. (spent: day $2.50 of $2.50)"}` + "\n"
	if code != 0 || out != want || errs != "" {
		t.Errorf("over: exit %d, stdout %q, stderr %q; want %q", code, out, errs, want)
	}
	// The second call reads the warm cache: the same answer.
	if code, out2, _ := run(over); code != 0 || out2 != want {
		t.Errorf("over, warm: exit %d, %q", code, out2)
	}
	if code, out, errs := run(under); code != 0 || out != "" || errs != "" {
		t.Errorf("under: exit %d, stdout %q, stderr %q; want no opinion", code, out, errs)
	}
	if code, out, errs := run(jqRule); code != 0 || !strings.Contains(out, "jq saw it.") {
		t.Errorf("$spend: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// A budgets section that names an unknown period, or an over_budget
// rule without the limit it names, is a broken rule file.
func TestBudgetFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ body, want string }{
		{"budgets:\n  dya: 1\nrules:\n  - events: Stop\n    system_message: x\n", `unknown budget "dya"`},
		{"budgets:\n  day: 1\n  warn: 2\nrules:\n  - events: Stop\n    system_message: x\n", "warn is a fraction"},
		{"rules:\n  - events: Stop\n    over_budget: day\n    system_message: x\n", "no budgets section"},
		{"budgets: {day: 1}\nrules:\n  - events: Stop\n    over_budget: week\n    system_message: x\n", "sets no week limit"},
		{"budgets: {day: 1}\nrules:\n  - events: Stop\n    over_budget: dya\n    system_message: x\n", `unknown period "dya"`},
	} {
		p := filepath.Join(dir, "r.yaml")
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := run(t, `{"hook_event_name":"Stop","session_id":"s","transcript_path":"/nonexistent","cwd":"/"}`, "lint", p)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want %q", c.body, code, errs, c.want)
		}
	}
}
