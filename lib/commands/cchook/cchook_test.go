package cchook

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/hooks"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// run runs cc-hook in testSystem (golden.Call: "" is no stdin).
func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return golden.Call(func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		return RunWith(testSystem, args, stdin, stdout, stderr)
	}, stdin, args...)
}

const replyUsage = "usage: cc-hook reply EVENT [DECISION] [--reason TEXT] [--context TEXT] [--system-message TEXT]\nRun 'cc-hook -h' for help.\n"

// testSystem puts the binary at /usr/local/bin/cc-hook, for settings.
var testSystem = cli.System{Home: "/home/dev", Executable: func() (string, error) { return "/usr/local/bin/cc-hook", nil }}

func fixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../../testdata/hooks/payloads", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestCommand(t *testing.T) {
	dir := t.TempDir()
	rules := filepath.Join(dir, "r.yaml")
	os.WriteFile(rules, []byte("rules:\n  - events: PreToolUse\n    matcher: Bash\n    if: .tool_input.command | startswith(\"touch\")\n    decision: deny\n    reason: no touching\n  - events: TaskCompleted\n    decision: block\n    reason: tests fail\n"), 0o644)
	broken := filepath.Join(dir, "broken.yaml")
	os.WriteFile(broken, []byte("rules:\n  - events: PreToolUse\n    if: '.x |'\n    decision: ask\n"), 0o644)
	pre := fixture(t, "PreToolUse")
	deny := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no touching"}}` + "\n"
	// A condition failing on a payload value: gojq quotes the value in its
	// error, and a key in it must not reach stderr or the model.
	leaky := filepath.Join(dir, "leaky.yaml")
	os.WriteFile(leaky, []byte("rules:\n  - events: PreToolUse\n    if: .tool_input.command | test(1)\n    decision: deny\n    reason: r\n"), 0o644)
	secret := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"sk-ant-api03-SECRETSECRET"}}`
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"run denies", pre, []string{"run", rules}, 0, deny, ""},
		{"run no match", fixture(t, "Stop"), []string{"run", rules}, 0, "", ""},
		{"run exit 2 on purpose", fixture(t, "TaskCompleted"), []string{"run", rules}, 2, "", "tests fail\n"},
		{"run broken payload", "nope", []string{"run", rules}, 1, "", "cc-hook: not a hook payload: invalid JSON: invalid literal at byte 0\n"},
		{"run empty stdin", "", []string{"run", rules}, 1, "", "cc-hook: no payload on stdin\n"},
		{"run missing rules, block", pre, []string{"run", filepath.Join(dir, "none.yaml"), "--on-error", "block"}, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"cc-hook failed, blocking (on-error block): reading rules: open ` + dir + `/none.yaml: no such file or directory"}}` + "\n",
			"cc-hook: reading rules: open " + dir + "/none.yaml: no such file or directory\n"},
		{"run broken rule, ask", pre, []string{"run", "--on-error", "ask", broken}, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"cc-hook failed, asking (on-error ask): ` + broken + `: rule at line 2: if: invalid jq expression: unexpected EOF     .x |         ^"}}` + "\n",
			"cc-hook: " + broken + ": rule at line 2: if: invalid jq expression: unexpected EOF     .x |         ^\n"},
		{"run masks a key in a failure", secret, []string{"run", leaky, "--on-error", "block"}, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"cc-hook failed, blocking (on-error block): ` + leaky + `: rule at line 2: if: jq: test(1; null) cannot be applied to: string (\"***\")"}}` + "\n",
			"cc-hook: " + leaky + ": rule at line 2: if: jq: test(1; null) cannot be applied to: string (\"***\")\n"},
		{"run usage error is exit 1", pre, []string{"run"}, 1, "", "cc-hook: run needs one rule file\nusage: cc-hook run RULES.yaml [--on-error pass|block|ask]\nRun 'cc-hook -h' for help.\n"},
		{"unknown flag is exit 1", pre, []string{"run", rules, "--nope"}, 1, "", "cc-hook: unknown flag --nope\nusage: cc-hook run RULES.yaml [--on-error pass|block|ask]\nRun 'cc-hook -h' for help.\n"},
		{"bad policy is exit 1", pre, []string{"run", rules, "--on-error", "deny"}, 1, "", "cc-hook: --on-error \"deny\": want one of pass, block, ask\nusage: cc-hook run RULES.yaml [--on-error pass|block|ask]\nRun 'cc-hook -h' for help.\n"},
		{"no subcommand", "", nil, 1, "", "cc-hook: a command is needed (run, parse, reply, check, settings, lint, backtest, test)\nRun 'cc-hook -h' for help.\n"},
		{"flag of another subcommand", "", []string{"parse", "--reason", "x"}, 1, "", "cc-hook: unknown flag --reason\nusage: cc-hook parse\nRun 'cc-hook -h' for help.\n"},
		{"parse", pre, []string{"parse"}, 0, `{"event":"PreToolUse","session_id":"0b7d6b2e-5c1a-4f7e-9a51-2d9b4f3e8c11","transcript_path":"/home/dev/.claude/projects/-home-dev-proj/0b7d6b2e-5c1a-4f7e-9a51-2d9b4f3e8c11.jsonl","cwd":"/home/dev/proj","prompt_id":"6a1f9e0c-2d3b-4c5d-8e7f-0a1b2c3d4e5f","permission_mode":"default","effort":{"level":"high"},"tool_name":"Bash","tool_input":{"command":"touch ran","description":"Create a file"},"tool_use_id":"toolu_01A","unknown_fields":[],"type_mismatches":[]}` + "\n", ""},
		{"parse --jq", pre + `{"hook_event_name":"Stop","cwd":5}` + "\n", []string{"parse", "-q", "[.event, .type_mismatches[]?]", "-r"}, 0, "[\"PreToolUse\"]\n[\"Stop\",\"cwd\"]\n", ""},
		{"parse skips and counts", "[1]\n{bad\n" + pre, []string{"parse", "--jq", ".event"}, 1, "\"PreToolUse\"\n", "cc-hook: <stdin>:1: not a hook payload: not a JSON object\ncc-hook: <stdin>:2: malformed JSON, line skipped\ncc-hook: parse: 2 of 3 lines skipped\n"},
		{"reply deny", "", []string{"reply", "PreToolUse", "deny", "--reason", "use glab-pipeline inspect"}, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"use glab-pipeline inspect"}}` + "\n", ""},
		{"reply deny without reason", "", []string{"reply", "PreToolUse", "deny"}, 1, "", "cc-hook: invalid PreToolUse reply: hookSpecificOutput.permissionDecisionReason: incomplete: a deny needs a reason: without one the model sees only \"Blocked by hook\"\n"},
		{"reply context", "", []string{"reply", "SessionStart", "--context", "hi <there>"}, 0, `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"hi <there>"}}` + "\n", ""},
		{"reply --jq", "", []string{"reply", "Stop", "block", "--reason", "r", "--jq", ".decision", "-r"}, 0, "block\n", ""},
		{"reply updated input", "", []string{"reply", "PreToolUse", "allow", "--updated-input", `{"command":"touch changed"}`}, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"touch changed"}}}` + "\n", ""},
		{"reply updated input keeps numbers", "", []string{"reply", "PreToolUse", "allow", "--updated-input", `{"timeout":1.000000000000000000001,"id":12345678901234567890}`}, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"id":12345678901234567890,"timeout":1.000000000000000000001}}}` + "\n", ""},
		{"reply updated input trailing data", "", []string{"reply", "PreToolUse", "allow", "--updated-input", `{"a":1} {"b":2}`}, 1, "", "cc-hook: --updated-input must be a JSON object\nusage: cc-hook reply EVENT [DECISION] [--reason TEXT] [--context TEXT] [--system-message TEXT]\nRun 'cc-hook -h' for help.\n"},
		{"reply exit 2", "", []string{"reply", "TeammateIdle", "block", "--reason", "keep going"}, 2, "", "keep going\n"},
		{"reply wrong event", "", []string{"reply", "SessionEnd", "--context", "x"}, 1, "", "cc-hook: invalid SessionEnd reply: hookSpecificOutput.hookEventName: rejected: SessionEnd has no hookSpecificOutput in the reply schema\n"},
		{"reply unknown event", "", []string{"reply", "Nope", "allow"}, 1, "", "cc-hook: unknown event \"Nope\"\nusage: cc-hook reply EVENT [DECISION] [--reason TEXT] [--context TEXT] [--system-message TEXT]\nRun 'cc-hook -h' for help.\n"},
		{"reply misspelt event", "", []string{"reply", "PreToolUs", "allow"}, 1, "", "cc-hook: unknown event \"PreToolUs\"; did you mean PreToolUse?\n" + replyUsage},
		{"check misspelt event", "{}", []string{"check", "--event", "Stopp"}, 1, "", "cc-hook: --event \"Stopp\": want one of " + strings.Join(hooks.Events, ", ") + "; did you mean Stop?\nusage: cc-hook check [--event EVENT]\nRun 'cc-hook -h' for help.\n"},
		{"unknown subcommand", "", []string{"lnit"}, 1, "", "cc-hook: unknown command \"lnit\" (run, parse, reply, check, settings, lint, backtest, test); did you mean lint?\nRun 'cc-hook -h' for help.\n"},
		{"reply nothing", "", []string{"reply", "Stop"}, 1, "", "cc-hook: reply needs a DECISION, --context, --system-message or --session-title\nusage: cc-hook reply EVENT [DECISION] [--reason TEXT] [--context TEXT] [--system-message TEXT]\nRun 'cc-hook -h' for help.\n"},
		{"check valid", `{"decision":"block","reason":"x"}`, []string{"check", "--event", "Stop"}, 0, `{"valid":true,"event":"Stop","problems":[]}` + "\n", ""},
		{"check deny without reason", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`, []string{"check"}, 1,
			`{"valid":false,"event":"PreToolUse","problems":[{"path":"hookSpecificOutput.permissionDecisionReason","kind":"incomplete","message":"a deny needs a reason: without one the model sees only \"Blocked by hook\""}]}` + "\n",
			"cc-hook: check: hookSpecificOutput.permissionDecisionReason: incomplete: a deny needs a reason: without one the model sees only \"Blocked by hook\"\n"},
		{"check field on wrong event", `{"hookSpecificOutput":{"hookEventName":"Notification","sessionTitle":"x"}}`, []string{"check", "--jq", ".problems[].kind", "-r"}, 1, "ignored\n",
			"cc-hook: check: hookSpecificOutput.sessionTitle: ignored: not read on Notification (read on UserPromptSubmit, SessionStart)\n"},
		{"check empty", "", []string{"check"}, 0, `{"valid":true,"event":null,"problems":[]}` + "\n", ""},
		{"settings", "", []string{"settings", rules, "--jq", ".hooks | keys"}, 0, "[\"PreToolUse\",\"TaskCompleted\"]\n", "cc-hook: add this to /home/dev/.claude/settings.json (your user settings; a project's .claude/settings.json or .claude/settings.local.json works too), merged with what is there: keep its other keys and hooks\n"},
		{"settings broken", "", []string{"settings", broken}, 1, "", "cc-hook: " + broken + ": rule at line 2: if: invalid jq expression: unexpected EOF\n    .x |\n        ^\n"},
		{"run --jq refused", pre, []string{"run", rules, "--jq", "."}, 1, "", "cc-hook: run prints a reply for Claude Code, not records: --jq does not apply\nusage: cc-hook run RULES.yaml [--on-error pass|block|ask]\nRun 'cc-hook -h' for help.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tt.stdin, tt.args...)
			if code != tt.code || stdout != tt.stdout || stderr != tt.stderr {
				t.Errorf("got %d\nstdout %q\nstderr %q\nwant %d\nstdout %q\nstderr %q", code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

func TestSettingsCommand(t *testing.T) {
	abs, _ := filepath.Abs("../../../testdata/hooks/guard.yaml")
	note := "cc-hook: add this to /home/dev/.claude/settings.json (your user settings; a project's .claude/settings.json or .claude/settings.local.json works too), merged with what is there: keep its other keys and hooks\n"
	for _, tt := range []struct {
		args    []string
		command string
	}{
		{[]string{"--command", "/opt/cc hook"}, "/opt/cc hook"},
		// By default the binary's absolute path: an IDE's PATH may lack it.
		{nil, "/usr/local/bin/cc-hook"},
	} {
		code, stdout, stderr := run(t, "", append([]string{"settings", "../../../testdata/hooks/guard.yaml", "--on-error", "block"}, tt.args...)...)
		want := `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "` + tt.command + ` run --on-error block ` + abs + `",
            "onFailure": "block"
          }
        ]
      }
    ]
  }
}
`
		if code != 0 || stdout != want || stderr != note {
			t.Errorf("got %d %q %q\nwant %q %q", code, stdout, stderr, want, note)
		}
	}
}

func TestHelp(t *testing.T) {
	code, stdout, _ := run(t, "", "-h")
	if code != 0 || !strings.Contains(stdout, "never exits 2 for a usage error") || !strings.Contains(stdout, "--on-error") {
		t.Errorf("help: %d %s", code, stdout)
	}
}
