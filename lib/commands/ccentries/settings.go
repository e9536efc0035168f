package ccentries

import (
	"fmt"
	"path/filepath"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/hooks"
)

// printSettings prints the settings.json object of a SessionEnd hook that
// runs `cc-entries --archive DIR` as each session ends: Claude Code pipes
// the hook payload, a record with transcript_path, to the command.
//
// DIR is made absolute: a hook runs in the session's cwd, not the one
// --print-settings ran in. stdout goes to /dev/null: Claude Code parses a
// hook's stdout as a JSON reply when it is JSON, and an archive record is
// not one; stderr is kept, so that a failure (exit 1) is shown to the user.
func (o *options) printSettings(env *cli.Env) error {
	dir, err := filepath.Abs(o.archive)
	if err != nil {
		return fmt.Errorf("resolving --archive %s: %w", o.archive, err)
	}
	cmd, err := o.sys.SelfCommand("--archive", dir)
	if err != nil {
		return err
	}
	type handler struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	return cli.PrintSettings(env, o.sys, map[string]any{"hooks": map[string]any{
		hooks.SessionEnd: []any{map[string]any{"hooks": []handler{{"command", cmd + " >/dev/null"}}}},
	}})
}
