package rules

import (
	"context"
	"strings"
	"testing"
)

// TestExampleSecrets runs the example rule file for what cc-redact --hook
// cannot mask: keys in prompts, commands that print secret files or the
// environment.
func TestExampleSecrets(t *testing.T) {
	f, err := LoadFile("../../../testdata/hooks/secrets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	key := "sk-ant-api03-" + strings.Repeat("Xq7Zk2Wv9T", 4)
	prompts := []struct {
		prompt string
		block  bool
	}{
		{"use this key: " + key + " for the test", true},
		{"token ghp_" + strings.Repeat("Ab3dEf7hK9", 3) + "Qz8xWv", true},
		{"AWS id AKIA" + "QX7ZR2TM4KVB9WLP", true},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nabc", true},
		{"read ANTHROPIC_API_KEY from the environment", false},
		{"what does sk-ant- mean?", false},
	}
	for _, tt := range prompts {
		data, ev := payload(t, "UserPromptSubmit", func(m map[string]any) { m["prompt"] = tt.prompt })
		m, err := f.Eval(context.Background(), ev, data)
		if err != nil {
			t.Fatal(err)
		}
		if (m != nil) != tt.block {
			t.Errorf("prompt %.30q: blocked %v, want %v", tt.prompt, m != nil, tt.block)
		}
		if m != nil && (strings.Contains(string(m.Reply.JSON()), key) || !strings.Contains(string(m.Reply.JSON()), `"decision":"block"`)) {
			t.Errorf("reply %s", m.Reply.JSON())
		}
	}
	cmds := []struct {
		cmd  string
		deny bool
	}{
		{"cat .env", true},
		{"cd app && cat config/.env.production", true},
		{"head -5 ~/.aws/credentials", true},
		{"cat ~/.ssh/id_ed25519", true},
		{"printenv", true},
		{"env | sort", true},
		{"ls -la", false},
		{"cat README.md", false},
		{"env FOO=1 go test ./...", false},
		{"printenv HOME", false},
		{"grep -o '^[A-Z_]*=' .env", false},
	}
	for _, tt := range cmds {
		data, ev := payload(t, "PreToolUse", bash(tt.cmd))
		m, err := f.Eval(context.Background(), ev, data)
		if err != nil {
			t.Fatal(err)
		}
		if (m != nil) != tt.deny {
			t.Errorf("%q: denied %v, want %v", tt.cmd, m != nil, tt.deny)
		}
	}
}
