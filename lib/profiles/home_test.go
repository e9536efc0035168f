package profiles

import (
	"errors"
	"testing"
)

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
