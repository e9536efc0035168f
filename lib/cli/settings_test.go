package cli

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestSelfCommand(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real bin", "cc-redact")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "cc-redact")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	realDir, _ := filepath.EvalSymlinks(filepath.Dir(real))
	tests := []struct {
		name string
		exe  string
		args []string
		want string
	}{
		// A shim's symlink is resolved: it may later point elsewhere.
		{"symlink resolved and quoted", link, []string{"--hook"}, "'" + filepath.Join(realDir, "cc-redact") + "' --hook"},
		{"missing file kept as is", "/opt/ccpipe/bin/cc-hook", nil, "/opt/ccpipe/bin/cc-hook"},
		{"args quoted", "/bin/cc-redact", []string{"--rules", "/home/a b/it's.rules"}, `/bin/cc-redact --rules '/home/a b/it'\''s.rules'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sys := System{Executable: func() (string, error) { return tt.exe, nil }}
			got, err := sys.SelfCommand(tt.args...)
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	sys := System{Executable: func() (string, error) { return "", errors.New("no /proc") }}
	if _, err := sys.SelfCommand(); err == nil {
		t.Error("no error when the path is unknown")
	}
}

func TestUserSettingsPath(t *testing.T) {
	env := map[string]string{}
	sys := System{Home: "/home/dev", Getenv: func(k string) string { return env[k] }}
	if got := sys.UserSettingsPath(); got != "/home/dev/.claude/settings.json" {
		t.Errorf("got %q", got)
	}
	env["CLAUDE_CONFIG_DIR"] = "/cfg/work"
	if got := sys.UserSettingsPath(); got != "/cfg/work/settings.json" {
		t.Errorf("with CLAUDE_CONFIG_DIR: got %q", got)
	}
}
