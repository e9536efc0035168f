package hooks

import "testing"

func TestCheckPath(t *testing.T) {
	for _, tc := range []struct {
		event, tool string
		path        []string
		where       string // "" when the path can be there
	}{
		{PreToolUse, "Edit", []string{"tool_input", "new_string"}, ""},
		{PreToolUse, "Edit", []string{"tool_input", "content"}, "Edit"},
		{PreToolUse, "", []string{"tool_input", "content"}, ""},
		{PreToolUse, "mcp__x__y", []string{"tool_input", "anything"}, ""},
		{PostToolUse, "Bash", []string{"tool_response", "stdout"}, ""},
		{UserPromptSubmit, "", []string{"user_prompt"}, UserPromptSubmit},
		{UserPromptSubmit, "", []string{"prompt"}, ""},
		{Stop, "", []string{"effort", "level"}, ""},
		{Stop, "", []string{"effort", "lvl"}, Stop},
		{PostToolBatch, "", []string{"tool_calls", "[]", "tool_input", "x"}, ""},
		{PostToolBatch, "", []string{"tool_calls", "[]", "tool"}, PostToolBatch},
		{"NoSuchEvent", "", []string{"x"}, ""},
		{PreToolUse, "WebSearch", []string{"tool_input", "allowed_domains", "[]"}, ""},
	} {
		m := CheckPath(tc.event, tc.tool, tc.path)
		switch {
		case tc.where == "" && m != nil:
			t.Errorf("%s %s %v: %+v", tc.event, tc.tool, tc.path, m)
		case tc.where != "" && (m == nil || m.Where != tc.where):
			t.Errorf("%s %s %v: %+v, want missing in %s", tc.event, tc.tool, tc.path, m, tc.where)
		}
	}
}

func TestClosest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		known []string
		want  string
	}{
		{"content", []string{"file_path", "new_string", "old_string", "replace_all"}, "new_string"},
		{"user_prompt", []string{"cwd", "prompt", "session_id"}, "prompt"},
		{"cmd", []string{"command", "description", "timeout"}, "command"},
		{"stop_hook_activ", []string{"stop_hook_active", "last_assistant_message"}, "stop_hook_active"},
		{"zzz", []string{"command", "description"}, ""},
	} {
		if got := Closest(tc.name, tc.known); got != tc.want {
			t.Errorf("Closest(%s) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
