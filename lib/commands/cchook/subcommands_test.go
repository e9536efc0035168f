package cchook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The example rule files in testdata/hooks lint clean: CI keeps them
// readable by the payloads they are written for.
func TestExamplesLint(t *testing.T) {
	files := examples(t)
	if len(files) < 3 {
		t.Fatalf("examples: %v", files)
	}
	code, out, errs := run(t, "", append([]string{"lint"}, files...)...)
	if code != 0 || out != "" || errs != "" {
		t.Errorf("lint %v: exit %d\n%s%s", files, code, out, errs)
	}
}

func TestLintRejects(t *testing.T) {
	code, out, _ := run(t, "", "lint", "testdata/lint-bad.yaml")
	if code != 1 {
		t.Errorf("exit %d", code)
	}
	for _, s := range []string{`"field":".tool_input.content","missing_in":["Edit"]`, `"did_you_mean":".tool_input.new_string"`,
		`"field":".user_prompt","missing_in":["UserPromptSubmit"]`, `"did_you_mean":".prompt"`} {
		if !strings.Contains(out, s) {
			t.Errorf("lint output lacks %s:\n%s", s, out)
		}
	}
}

// run and settings lint at load; run follows --on-error.
func TestLintAtLoad(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("rules:\n  - {name: e, events: PreToolUse, matcher: Edit, if: '.tool_input.content | test(\"x\")', decision: deny, reason: r}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edit := `{"session_id":"s","transcript_path":"/t","cwd":"/","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"/a","old_string":"a","new_string":"x"},"tool_use_id":"t"}`
	code, out, errs := run(t, edit, "run", bad)
	if code != 1 || out != "" || !strings.Contains(errs, "reads .tool_input.content, which Edit's tool_input never has") {
		t.Errorf("run, pass: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = run(t, edit, "run", "--on-error", "block", bad)
	if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "did you mean new_string") {
		t.Errorf("run, block: exit %d\n%s", code, out)
	}
	// A payload of another event does not read that rule.
	code, out, errs = run(t, fixture(t, "Stop"), "run", bad)
	if code != 0 || out != "" || errs != "" {
		t.Errorf("run, other event: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := run(t, "", "settings", bad); code != 1 || !strings.Contains(errs, "did you mean new_string") {
		t.Errorf("settings: exit %d %s", code, errs)
	}
}

// cc-hook test fails on a wrong expectation, showing payload, expected
// and got.
func TestTestCases(t *testing.T) {
	code, _, errs := run(t, "", "test", hooksDir+"/guard.yaml", hooksDir+"/guard.cases.yaml")
	if code != 0 || errs != "" {
		t.Errorf("guard cases: exit %d %s", code, errs)
	}
	code, _, errs = run(t, "", "test", hooksDir+"/guard.yaml", "testdata/guard-wrong.cases.ndjson")
	if code != 1 {
		t.Errorf("wrong cases: exit %d", code)
	}
	for _, s := range []string{`case "ls is denied (wrong)" FAILED`, `payload:  {"hook_event_name":"PreToolUse","tool_input":{"command":"ls"}`,
		"expected: deny\n", "got:      none", "2 of 3 cases failed"} {
		if !strings.Contains(errs, s) {
			t.Errorf("stderr lacks %q:\n%s", s, errs)
		}
	}
}
