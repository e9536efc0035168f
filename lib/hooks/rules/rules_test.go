package rules

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/hooks"
)

func payload(t *testing.T, event string, edit func(map[string]any)) ([]byte, hooks.Event) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../../testdata/hooks/payloads", event+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		data, _ = json.Marshal(m)
	}
	ev, err := hooks.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return data, ev
}

func bash(cmd string) func(map[string]any) {
	return func(m map[string]any) { m["tool_input"] = map[string]any{"command": cmd} }
}

// TestExampleGuard runs the example rule file shipped in testdata/hooks.
func TestExampleGuard(t *testing.T) {
	f, err := LoadFile("../../../testdata/hooks/guard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cmd, rule string
	}{
		{"rm -rf /", "no-rm-rf-root"},
		{"sudo rm -rf --no-preserve-root /", "no-rm-rf-root"},
		{"rm -fr ~", "no-rm-rf-root"},
		{"rm -r -f /*", "no-rm-rf-root"},
		{"cd /tmp && rm -Rf $HOME/", "no-rm-rf-root"},
		{"echo hi; rm -rf / ", "no-rm-rf-root"},
		{"rm -rf /tmp/build", ""},
		{"rm -rf ./dist", ""},
		{"rm -f /etc/motd", ""},
		{"rm file", ""},
		{"glab ci view", "no-glab-ci-view"},
		{"git fetch && glab ci view --web", "no-glab-ci-view"},
		{"glab ci status", ""},
		{"echo glab ci view", ""},
	}
	for _, tt := range tests {
		data, ev := payload(t, "PreToolUse", bash(tt.cmd))
		m, err := f.Eval(context.Background(), ev, data)
		if err != nil {
			t.Fatalf("%q: %v", tt.cmd, err)
		}
		got := ""
		if m != nil {
			got = m.Rule.Name
			if !strings.Contains(string(m.Reply.JSON()), `"permissionDecision":"deny"`) {
				t.Errorf("%q: reply %s", tt.cmd, m.Reply.JSON())
			}
		}
		if got != tt.rule {
			t.Errorf("%q matched %q, want %q", tt.cmd, got, tt.rule)
		}
	}
	// Other tools and events are left alone.
	data, ev := payload(t, "PreToolUse", func(m map[string]any) {
		m["tool_name"] = "BashOutput"
		m["tool_input"] = map[string]any{"command": "rm -rf /"}
	})
	if m, err := f.Eval(context.Background(), ev, data); m != nil || err != nil {
		t.Errorf("BashOutput matched: %v %v", m, err)
	}
}

func TestEval(t *testing.T) {
	rules := `rules:
  - name: ctx
    events: SessionStart
    matcher: startup|resume
    additional_context: welcome
  - name: regex
    events: [PreToolUse, PermissionRequest]
    matcher: ^(Write|Edit)$
    if: .tool_input.file_path | endswith(".env")
    decision: deny
    reason: no env files
  - name: stop
    events: [Stop]
    if: .stop_hook_active | not
    unless: exit 3
    decision: block
    reason: keep going
  - name: task
    events: [TaskCompleted]
    decision: block
    reason: not yet
  - name: fallback
    events: [Stop]
    system_message: bye
`
	f, err := Load([]byte(rules))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, event string
		edit        func(map[string]any)
		rule        string
		out         string
	}{
		{"matcher list", "SessionStart", nil, "ctx", `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"welcome"}}`},
		{"matcher list misses", "SessionStart", func(m map[string]any) { m["source"] = "compact" }, "", ""},
		{"regex matcher and if", "PreToolUse", func(m map[string]any) {
			m["tool_name"] = "Edit"
			m["tool_input"] = map[string]any{"file_path": "/p/.env"}
		}, "regex", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no env files"}}`},
		{"same rule on PermissionRequest", "PermissionRequest", func(m map[string]any) {
			m["tool_name"] = "Write"
			m["tool_input"] = map[string]any{"file_path": "/p/.env"}
		}, "regex", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no env files"}}}`},
		{"if false", "PreToolUse", func(m map[string]any) {
			m["tool_name"] = "Edit"
			m["tool_input"] = map[string]any{"file_path": "/p/a.go"}
		}, "", ""},
		{"unless fails: block", "Stop", nil, "stop", `{"decision":"block","reason":"keep going"}`},
		{"stop_hook_active: next rule", "Stop", func(m map[string]any) { m["stop_hook_active"] = true }, "fallback", `{"systemMessage":"bye"}`},
		{"exit-2 event", "TaskCompleted", nil, "task", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, ev := payload(t, tt.event, tt.edit)
			m, err := f.Eval(context.Background(), ev, data)
			if err != nil {
				t.Fatal(err)
			}
			if m == nil {
				if tt.rule != "" {
					t.Fatalf("no match, want %s", tt.rule)
				}
				return
			}
			if m.Rule.Name != tt.rule || string(m.Reply.JSON()) != tt.out {
				t.Errorf("got %s %s, want %s %s", m.Rule.Name, m.Reply.JSON(), tt.rule, tt.out)
			}
		})
	}
	data, ev := payload(t, "TaskCompleted", nil)
	m, _ := f.Eval(context.Background(), ev, data)
	if m == nil || m.Reply.ExitCode() != 2 {
		t.Errorf("TaskCompleted block: %+v", m)
	}
}

func TestUnlessOutputInReason(t *testing.T) {
	f, err := Load([]byte("rules:\n  - events: Stop\n    unless: echo FAIL-1; echo FAIL-2 >&2; cat >/dev/null; exit 1\n    decision: block\n    reason: tests fail\n"))
	if err != nil {
		t.Fatal(err)
	}
	data, ev := payload(t, "Stop", nil)
	m, err := f.Eval(context.Background(), ev, data)
	if err != nil || m == nil {
		t.Fatal(m, err)
	}
	if want := `{"decision":"block","reason":"tests fail\n\nFAIL-1\nFAIL-2"}`; string(m.Reply.JSON()) != want {
		t.Errorf("got %s, want %s", m.Reply.JSON(), want)
	}
	f, _ = Load([]byte("rules:\n  - events: Stop\n    unless: \"true\"\n    decision: block\n    reason: x\n"))
	if m, err := f.Eval(context.Background(), ev, data); m != nil || err != nil {
		t.Errorf("unless true still matched: %v %v", m, err)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "no rules"},
		{"rule:\n  - events: Stop\n", "field rule not found"},
		{"rules:\n  - events: Stop\n    decison: block\n", `unknown rule field "decison"`},
		{"rules:\n  - events: Stpo\n    decision: block\n", `unknown event "Stpo"`},
		{"rules:\n  - decision: block\n", "no events"},
		{"rules:\n  - events: Stop\n    decision: veto\n", `unknown decision "veto"`},
		{"rules:\n  - events: Stop\n", "neither decides nor adds"},
		{"rules:\n  - just a string\n", "must be a mapping"},
		{"rules: [", "invalid rule file"},
	}
	for _, tt := range tests {
		_, err := Load([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%q) err = %v, want %q", tt.in, err, tt.want)
		}
	}
}

// TestPrepareErrors: problems found when the rule is first needed (or by
// Validate), never silently skipped.
func TestPrepareErrors(t *testing.T) {
	tests := []struct{ in, event, want string }{
		{"rules:\n  - events: PreToolUse\n    decision: deny\n", "PreToolUse", "a deny needs a reason"},
		{"rules:\n  - events: PermissionRequest\n    additional_context: x\n", "PermissionRequest", "additionalContext: ignored"},
		{"rules:\n  - events: SessionEnd\n    decision: block\n    reason: x\n", "SessionEnd", "not a decision SessionEnd reads"},
		{"rules:\n  - events: Stop\n    matcher: x\n    system_message: m\n", "Stop", "Stop takes no matcher"},
		{"rules:\n  - events: PreToolUse\n    matcher: '('\n    decision: ask\n", "PreToolUse", "invalid matcher"},
		{"rules:\n  - events: PreToolUse\n    if: '.tool_name |'\n    decision: ask\n", "PreToolUse", "invalid jq expression"},
		{"rules:\n  - events: PreToolUse\n    if: '.tool_input.command | test(1)'\n    decision: ask\n", "PreToolUse", "if: jq:"},
	}
	for _, tt := range tests {
		f, err := Load([]byte(tt.in))
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if err := f.Validate(); !strings.Contains(errString(err), tt.want) && !strings.Contains(tt.want, "jq:") {
			t.Errorf("Validate(%q) = %v, want %q", tt.in, err, tt.want)
		}
		data, ev := payload(t, tt.event, nil)
		if _, err := f.Eval(context.Background(), ev, data); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Eval(%q) err = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestSettings(t *testing.T) {
	f, err := Load([]byte(`rules:
  - events: [PreToolUse]
    matcher: Bash
    decision: ask
    reason: r
  - events: [PreToolUse, PostToolUse]
    matcher: Write|Edit
    system_message: m
  - events: [PostToolUse]
    matcher: ^mcp__
    system_message: m
  - events: [Stop, SessionStart]
    system_message: m
  - events: [SessionStart]
    matcher: startup
    system_message: m
`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(f.Settings("cc-hook run /r.yaml", true))
	want := `{"hooks":{` +
		`"PostToolUse":[{"matcher":"^(?:Edit|Write)$|(?:^mcp__)","hooks":[{"type":"command","command":"cc-hook run /r.yaml","onFailure":"block"}]}],` +
		`"PreToolUse":[{"matcher":"Bash|Edit|Write","hooks":[{"type":"command","command":"cc-hook run /r.yaml","onFailure":"block"}]}],` +
		`"SessionStart":[{"hooks":[{"type":"command","command":"cc-hook run /r.yaml","onFailure":"block"}]}],` +
		`"Stop":[{"hooks":[{"type":"command","command":"cc-hook run /r.yaml","onFailure":"block"}]}]}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
