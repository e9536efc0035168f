package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SelfPath is the absolute path of the running binary, symlinks
// resolved. Settings name the binary by path: Claude Code started from an
// IDE or a desktop launcher often lacks ~/go/bin on its PATH, and a
// symlink (a version manager's shim) may later point elsewhere.
func (s System) SelfPath() (string, error) {
	exe := s.Executable
	if exe == nil {
		exe = os.Executable
	}
	p, err := exe()
	if err != nil {
		return "", fmt.Errorf("finding this program's path: %w", err)
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return p, nil
}

// SelfCommand is a settings.json "command" that runs this binary with
// args: its SelfPath and the args, each quoted for sh where needed
// (Claude Code runs a command hook through a shell).
func (s System) SelfCommand(args ...string) (string, error) {
	p, err := s.SelfPath()
	if err != nil {
		return "", err
	}
	words := []string{ShellQuote(p)}
	for _, a := range args {
		words = append(words, ShellQuote(a))
	}
	return strings.Join(words, " "), nil
}

// UserSettingsPath is the settings file of the user's config dir:
// $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json.
func (s System) UserSettingsPath() string {
	if d := s.Env("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "settings.json")
	}
	if s.Home == "" {
		return filepath.Join("~", ".claude", "settings.json")
	}
	return filepath.Join(s.Home, ".claude", "settings.json")
}

// PrintSettings is what every --print-settings does: the settings.json
// object v on stdout, indented, valid JSON as a whole (so that it can be
// piped to jq or saved as a new file), and on stderr the file it belongs
// in. With --jq the object goes through the filter like any record.
func PrintSettings(env *Env, sys System, v any) error {
	if env.Out.Filtering() {
		if err := env.Out.Write(v); err != nil {
			return err
		}
	} else {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			return err
		}
		env.Out.Printed()
		if _, err := env.Stdout.Write(buf.Bytes()); err != nil {
			return err
		}
	}
	fmt.Fprintf(env.Stderr, "%s: add this to %s (your user settings; a project's .claude/settings.json "+
		"or .claude/settings.local.json works too), merged with what is there: keep its other keys and hooks\n",
		env.Name, sys.UserSettingsPath())
	return nil
}

// ShellQuote quotes s for sh when it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
