package extract

import (
	"strings"
	"testing"
)

func TestExitCode(t *testing.T) {
	tests := []struct {
		in     string
		code   int
		output string
		ok     bool
	}{
		{"Exit code 1", 1, "", true},
		{"Exit code 3\npartial-out\nsome-err", 3, "partial-out\nsome-err", true},
		{"Exit code 127\r\nnot found", 127, "not found", true},
		{"Exit code -1\n", -1, "", true},
		{"Exit code +1", 0, "", false},
		{"Exit code x", 0, "", false},
		{"Exit code ", 0, "", false},
		{"Exit code 99999999999999999999", 0, "", false},
		{"exit code 1", 0, "", false},
		{"hi\nExit code 1", 0, "", false},
		{"", 0, "", false},
	}
	for _, tt := range tests {
		code, out, ok := ExitCode(tt.in)
		if code != tt.code || out != tt.output || ok != tt.ok {
			t.Errorf("ExitCode(%q) = %d, %q, %v; want %d, %q, %v", tt.in, code, out, ok, tt.code, tt.output, tt.ok)
		}
	}
}

func TestPersistedOutputPath(t *testing.T) {
	real := "<persisted-output>\nOutput too large (223.5KB). Full output saved to: /home/dev/.claude/projects/-x/S/tool-results/brn0xi8zm.txt\n\nPreview (first 2KB):\n1\n2\n"
	tests := []struct {
		in, want string
		ok       bool
	}{
		{real, "/home/dev/.claude/projects/-x/S/tool-results/brn0xi8zm.txt", true},
		{"<persisted-output>\nFull output saved to: /a b/c.txt\n", "/a b/c.txt", true},
		{"<persisted-output>\nOutput too large.\n\nPreview: Full output saved to: /not/this", "", false},
		{"Full output saved to: /x", "", false},
		{"<persisted-output>\nFull output saved to: \n", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := PersistedOutputPath(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("PersistedOutputPath(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestNotificationAndUsageField(t *testing.T) {
	// As Claude Code 2.1.328 writes it (testdata/corpus, session c0a1f002).
	text := "<task-notification>\n<task-id>a94cf968ca085f37e</task-id>\n<tool-use-id>toolu_fake_t013_b0</tool-use-id>\n" +
		"<output-file>/tmp/x.output</output-file>\n<status>completed</status>\n<summary>Agent \"Background check\" finished</summary>\n" +
		"<note>A note.</note>\n<result>Background report: bg-sub-ok</result>\n" +
		"<usage><subagent_tokens>120</subagent_tokens><tool_uses>1</tool_uses><duration_ms>1620</duration_ms></usage>\n</task-notification>"
	n := parseNotification(text)
	if !n.ok || n.taskID != "a94cf968ca085f37e" || n.toolUseID != "toolu_fake_t013_b0" || n.status != "completed" ||
		n.result != "Background report: bg-sub-ok" || n.summary != `Agent "Background check" finished` {
		t.Fatalf("parseNotification: %+v", n)
	}
	var s Subagent
	n.apply(&s)
	if *s.TotalTokens != 120 || *s.ToolUseCount != 1 || *s.DurationMs != 1620 || *s.SubagentID != "a94cf968ca085f37e" {
		t.Errorf("apply: %+v", s)
	}
	// The hand-back form in a foreground Agent result.
	if v := usageField("subagent_tokens: 120\ntool_uses: 1\nduration_ms: 507", "subagent_tokens"); v == nil || *v != 120 {
		t.Errorf("line form: %v", v)
	}
	if v := usageField("tool_uses: x", "tool_uses"); v != nil {
		t.Errorf("bad number read as %d", *v)
	}
	if parseNotification("no tags here").ok {
		t.Error("plain text read as a notification")
	}
}

func TestSmallParsers(t *testing.T) {
	for in, want := range map[string]string{
		"PreToolUse:Bash hook error: DENY-REASON-42: touch is forbidden here": "DENY-REASON-42: touch is forbidden here",
		"PreToolUse:Bash hook error: [guard.sh]: no":                          "[guard.sh]: no",
		"the hook error: said something":                                      "the hook error: said something",
	} {
		if got := hookReason(in); got != want {
			t.Errorf("hookReason(%q) = %q, want %q", in, got, want)
		}
	}
	for _, tt := range [][3]string{
		{"", "", "human"}, {"", "sdk", "human"}, {"", "task_notification", "task-notification"},
		{"", "peer", "peer"}, {"peer", "human", "peer"}, {"coordinator", "", "coordinator"},
		{"observer", "", "observer"},
	} {
		if got := originName(tt[0], tt[1]); got != tt[2] {
			t.Errorf("originName(%q, %q) = %q, want %q", tt[0], tt[1], got, tt[2])
		}
	}
	if got := trimToolsUsed("<tools-used-before-summary>Bash</tools-used-before-summary>\n\nReport"); got != "Report" {
		t.Errorf("trimToolsUsed: %q", got)
	}
	if got := trimToolsUsed("<tools-used-before-summary>unclosed"); !strings.HasPrefix(got, "<tools") {
		t.Errorf("trimToolsUsed kept too little: %q", got)
	}
	for s, want := range map[string]bool{
		"<command-name>/compact</command-name>": true, "  <local-command-stdout>x": true,
		"<bash-input>ls</bash-input>": true, "please run <command-name>": false,
	} {
		if isCommandText(s) != want {
			t.Errorf("isCommandText(%q) != %v", s, want)
		}
	}
}
