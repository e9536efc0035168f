package commands_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

func TestMain(m *testing.M) {
	cmds := map[string]func(){}
	for _, c := range commands.All {
		cmds[c.Name] = func() { os.Exit(c.RunWith(scriptSystem(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
	}
	testscript.Main(m, cmds)
}

// scriptSystem is the process's System, with the clock a script sets
// through the seam: `env CCPIPE_SCRIPT_NOW=<RFC 3339 time>` (read here,
// by the harness, never by a command).
func scriptSystem() cli.System {
	sys := cli.OS()
	if v := os.Getenv("CCPIPE_SCRIPT_NOW"); v != "" {
		now, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "CCPIPE_SCRIPT_NOW: %v\n", err)
			os.Exit(3)
		}
		sys.Now = func() time.Time { return now }
	}
	return sys
}

// TestScripts runs the txtar scripts in testdata/script: real pipelines of
// the commands, each run as its own process.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       golden.Update(),
		Setup: func(e *testscript.Env) error {
			e.Setenv("CLAUDE_CONFIG_DIR", "")
			// The caches of the scripts' runs stay in their work dir.
			e.Setenv("XDG_CACHE_HOME", filepath.Join(e.WorkDir, ".cache"))
			if td, err := filepath.Abs("../../testdata"); err == nil {
				e.Setenv("TESTDATA", td)
			}
			return nil
		},
	})
}
