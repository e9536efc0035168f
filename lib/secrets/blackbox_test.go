package secrets

import (
	"strings"
	"testing"
)

// The examples of blackbox.md §3.3, and the edges of JS semantics.
func TestBlackboxMarkers(t *testing.T) {
	sk20 := "sk-" + strings.Repeat("a", 20)
	for _, c := range []struct {
		in   string
		want string // labels, space-separated, in Blackbox's order
	}{
		{"toolu_abc1", "toolu_"},
		{"toolu_abc", ""},
		{"toolu_ab-1", ""},
		{"x_toolu_1", ""},
		{"é toolu_1", "toolu_"},
		{"-toolu_1", "toolu_"},
		{"msg_01XYZ", "msg_"},
		{"send_msg_to_user", ""},
		{"msg_example_01", ""},
		{"call_" + strings.Repeat("a", 20), "call_"},
		{"call_" + strings.Repeat("a", 19), ""},
		{"call-1", ""},
		{"chatcmpl-abcd1234", "chatcmpl-"},
		{"chatcmpl-abc", ""},
		{"resp_" + strings.Repeat("b", 16), "resp_"},
		{"resp_" + strings.Repeat("b", 15), ""},
		{"desk-antenna", "sk-ant"},
		{"sk-proj-", "sk-proj"},
		{sk20, "sk-"},
		{"a" + sk20, ""},
		{"sk-" + strings.Repeat("a", 19), ""},
		{"Bearer " + strings.Repeat("t", 16), "bearer-token"},
		{"Bearer\u00a0\u3000" + strings.Repeat("t", 16), "bearer-token"},
		{"Bearer\u0085" + strings.Repeat("t", 16), ""}, // U+0085 is not JS whitespace
		{"bearer " + strings.Repeat("t", 16), ""},      // case-sensitive
		{"xBearer " + strings.Repeat("t", 16), ""},
		{"Bearer " + strings.Repeat("t", 15), ""},
		{"ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY"},
		{"MY_OPENAI_API_KEY_2", "OPENAI_API_KEY"},
		// Order is the table's, not the text's.
		{"OPENAI_API_KEY then toolu_1 then msg_2", "toolu_ msg_ OPENAI_API_KEY"},
		{"sk-ant-api03-" + strings.Repeat("k", 20), "sk-ant sk-"},
	} {
		got := strings.Join(Blackbox.Markers.Kinds([]byte(c.in)), " ")
		if got != c.want {
			t.Errorf("Markers(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestBlackboxUserData(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"desk-antenna", ""},
		{"toolu_abc1 msg_01", ""},
		{"sk-ant-" + strings.Repeat("a", 20), "sk-ant"},
		{"xsk-ant-" + strings.Repeat("a", 20), "sk-ant"}, // no boundary
		{"sk-ant-" + strings.Repeat("a", 19), ""},
		{"sk-proj-" + strings.Repeat("a", 20), "sk-proj"},
		{"sk-" + strings.Repeat("a", 32), "sk-"},
		{"sk-" + strings.Repeat("a", 31), ""},
		{"Bearer " + strings.Repeat("t", 16), "bearer-token"},
		{"ANTHROPIC_API_KEY", ""},
	} {
		got := strings.Join(Blackbox.UserData.Kinds([]byte(c.in)), " ")
		if got != c.want {
			t.Errorf("UserData(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMaskBlackbox(t *testing.T) {
	for _, c := range []struct {
		in    string
		known []string
		want  string
	}{
		{"key sk-ant-api03-abc, ok", nil, "key [redacted], ok"},
		{"sk-ant alone", nil, "sk-ant alone"},
		{"sk-proj-x1", nil, "[redacted]"},
		{"sk-" + strings.Repeat("z", 20) + ".", nil, "[redacted]."},
		{"Authorization: Bearer " + strings.Repeat("t", 16), nil, "Authorization: [redacted]"},
		{"my key abcd and abc", []string{"abcd", "abc"}, "my key [redacted] and abc"},
		{"ANTHROPIC_API_KEY=xyz12", []string{"xyz12"}, "ANTHROPIC_API_KEY=[redacted]"},
	} {
		if got := MaskBlackbox(c.in, c.known...); got != c.want {
			t.Errorf("MaskBlackbox(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
