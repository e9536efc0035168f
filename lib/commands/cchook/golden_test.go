package cchook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

const (
	payloads       = "../../../testdata/hooks/payloads"
	hooksDir       = "../../../testdata/hooks"
	corpusProjects = "../../../testdata/corpus/claude/projects"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// examples are the example rule files of testdata/hooks.
func examples(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(hooksDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".cases.yaml") {
			out = append(out, f)
		}
	}
	return out
}

// TestGolden keeps cc-hook's output in testdata: run's reply to every
// event's payload (testdata/hooks/payloads) under testdata/rules.yaml,
// one rule per decision (testdata/run); parse of every payload and of a
// drifted one; settings of the rule file (testdata/out); and check's
// records (testdata/check). The rule file's absolute path is written
// $RULES.
func TestGolden(t *testing.T) {
	rules, err := filepath.Abs(filepath.Join("testdata", "rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(payloads, "*.json"))
	if err != nil || len(files) != 33 {
		t.Fatalf("want the 33 events' payloads, got %d (%v)", len(files), err)
	}
	var all strings.Builder
	for _, f := range files {
		event := strings.TrimSuffix(filepath.Base(f), ".json")
		p := fixture(t, event)
		all.WriteString(strings.TrimSpace(p) + "\n")
		t.Run("run/"+event, func(t *testing.T) {
			code, out, errs := run(t, p, "run", rules)
			golden.Check(t, filepath.Join("testdata", "run", event+".golden"), golden.Output(code, errs, out))
		})
	}
	// A newer Claude Code: a field this version does not know, one of the
	// wrong type.
	drift := `{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/w","hook_event_name":"PreToolUse","tool_name":7,"tool_input":{"command":"ls"},"tool_use_id":"toolu_01B","sandbox":{"on":true}}` + "\n"
	tests := []struct {
		name, stdin string
		args        []string
	}{
		{name: "out/parse", stdin: all.String() + drift, args: []string{"parse"}},
		{name: "out/settings", args: []string{"settings", rules, "--on-error", "block"}},
		{name: "out/reply_allow_updated_input", args: []string{"reply", "PreToolUse", "allow", "--updated-input", `{"command":"ls -la"}`}},
		{name: "check/valid", stdin: `{"decision":"block","reason":"tests fail"}`, args: []string{"check", "--event", "Stop"}},
		{name: "check/empty", args: []string{"check"}},
		{name: "check/incomplete", stdin: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`, args: []string{"check"}},
		{name: "check/ignored", stdin: `{"hookSpecificOutput":{"hookEventName":"Notification","sessionTitle":"x"}}`, args: []string{"check"}},
		{name: "check/rejected", stdin: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"maybe"}}`, args: []string{"check"}},
		{name: "lint/bad", args: []string{"lint", "testdata/lint-bad.yaml"}},
		{name: "lint/examples", args: append([]string{"lint"}, examples(t)...)},
		{name: "test/pass", args: []string{"test", hooksDir + "/guard.yaml", hooksDir + "/guard.cases.yaml"}},
		{name: "test/fail", args: []string{"test", hooksDir + "/guard.yaml", "testdata/guard-wrong.cases.ndjson"}},
		{name: "backtest/history", args: []string{"backtest", hooksDir + "/history.yaml", corpusProjects}},
		{name: "backtest/all", args: []string{"backtest", "--all", hooksDir + "/history.yaml", corpusProjects + "/-home-dev-projects-beta"}},
		{name: "backtest/entries", stdin: readFile(t, corpusProjects+"/-home-dev-projects-gamma/c0a1f006-0000-4000-8000-000000000006.jsonl"),
			args: []string{"backtest", hooksDir + "/history.yaml"}},
		{name: "backtest/stdin", stdin: `{"transcript_path":"` + corpusProjects + `/-home-dev-projects-gamma/c0a1f006-0000-4000-8000-000000000006.jsonl"}` + "\n",
			args: []string{"backtest", hooksDir + "/history.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, tt.stdin, tt.args...)
			got := strings.ReplaceAll(golden.Output(code, errs, out), rules, "$RULES")
			got = strings.ReplaceAll(got, hooksDir, "$HOOKS")
			got = strings.ReplaceAll(got, corpusProjects, "$PROJECTS")
			golden.Check(t, filepath.Join("testdata", tt.name+".golden"), got)
		})
	}
	if _, err := os.Stat(filepath.Join("testdata", "run")); err != nil {
		t.Error(err)
	}
}
