package profiles

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestPasswdHome(t *testing.T) {
	p := filepath.Join(t.TempDir(), "passwd")
	data := "root:x:0:0:root:/root:/bin/bash\n#comment\nbad line\ndev:x:1000:1000::/home/dev:/bin/sh\nrel:x:1001:1001::relative:/bin/sh\n"
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	for uid, want := range map[int]string{0: "/root", 1000: "/home/dev", 1001: "", 4242: ""} {
		if got := passwdHome(p, uid); got != want {
			t.Errorf("passwdHome(%d) = %q, want %q", uid, got, want)
		}
	}
	if got := passwdHome(filepath.Join(t.TempDir(), "none"), 0); got != "" {
		t.Errorf("missing file: %q", got)
	}
}

// TestNoHome: with neither a home dir nor CLAUDE_CONFIG_DIR, Discover says
// so instead of listing nothing.
func TestNoHome(t *testing.T) {
	list, ws := Discover(Env{})
	if len(list) != 0 || !errors.Is(NoHome(ws), ErrNoHome) {
		t.Errorf("Discover(Env{}) = %v, %v; want ErrNoHome", list, ws)
	}
	if _, ws := Discover(Env{ClaudeConfigDir: t.TempDir()}); NoHome(ws) != nil {
		t.Errorf("CLAUDE_CONFIG_DIR alone: %v", ws)
	}
}
