package contract

import (
	"os"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// A rule file with a day budget blocks a prompt once the day's spend has
// reached it, in the real CLI: the first session's prompt passes (nothing
// spent yet), its answer costs more than the budget, and the next
// session's prompt is blocked before the model is asked, the figure in
// the reason Claude Code records.
func TestHookDayBudgetBlocksPrompt(t *testing.T) {
	Require(t)
	t.Parallel()
	bin := buildCCHook(t)
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Match: "FIRST-PROMPT-31", Blocks: []fakeapi.Block{fakeapi.Text("Done.")},
			Usage: &fakeapi.Usage{InputTokens: 40000, OutputTokens: 2000}},
	}}})
	dir := e.Project("budget")
	rulesPath := e.WriteFile("rules.yaml", `budgets:
  day: 0.05
rules:
  - name: day-budget
    events: UserPromptSubmit
    over_budget: day
    decision: block
    reason: "BUDGET-STOP-9: today's budget is spent"
`, 0o644)
	settings := ruleSettings(t, bin, rulesPath)
	first := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "FIRST-PROMPT-31 go", Settings: settings})
	if first.ExitCode != 0 {
		t.Fatalf("first claude -p: exit %d\n%s\n%s", first.ExitCode, first.Stdout, first.Stderr)
	}
	if !strings.Contains(first.Stdout, "Done.") {
		t.Fatalf("the first prompt, under the budget, did not reach the model:\n%s\n%s", first.Stdout, first.Stderr)
	}
	second := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "SECOND-PROMPT-32 go on", Settings: settings})
	for _, r := range e.API.Requests() {
		if r.Contains("SECOND-PROMPT-32") {
			t.Fatalf("the prompt past the budget reached the model (exit %d)\n%s\n%s", second.ExitCode, second.Stdout, second.Stderr)
		}
	}
	found := false
	for _, path := range e.Transcripts() {
		b, _ := os.ReadFile(path)
		s := string(b)
		found = found || strings.Contains(s, "blocked_by_hook") && strings.Contains(s, "BUDGET-STOP-9") && strings.Contains(s, "(spent: day $")
	}
	if !found {
		t.Errorf("no blocked_by_hook record with the reason and the figure (exit %d)\nstdout %s\nstderr %s", second.ExitCode, second.Stdout, second.Stderr)
	}
}
