package commands_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ccpipe/ccpipe/lib/commands/cccassette"
	"github.com/ccpipe/ccpipe/lib/commands/ccentries"
	"github.com/ccpipe/ccpipe/lib/commands/ccextract"
	"github.com/ccpipe/ccpipe/lib/commands/ccgrep"
	"github.com/ccpipe/ccpipe/lib/commands/cchook"
	"github.com/ccpipe/ccpipe/lib/commands/ccprofiles"
	"github.com/ccpipe/ccpipe/lib/commands/ccredact"
	"github.com/ccpipe/ccpipe/lib/commands/ccrender"
	"github.com/ccpipe/ccpipe/lib/commands/ccsend"
	"github.com/ccpipe/ccpipe/lib/commands/ccsessions"
	"github.com/ccpipe/ccpipe/lib/commands/ccstatusline"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"cc-profiles": func() { os.Exit(ccprofiles.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"cc-sessions": func() { os.Exit(ccsessions.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"cc-entries":  func() { os.Exit(ccentries.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"cc-extract":  func() { os.Exit(ccextract.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"cc-grep":     func() { os.Exit(ccgrep.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"cc-send":     func() { os.Exit(ccsend.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"cc-hook":     func() { os.Exit(cchook.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"cc-redact":   func() { os.Exit(ccredact.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"cc-render":   func() { os.Exit(ccrender.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"cc-cassette": func() { os.Exit(cccassette.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"cc-statusline": func() {
			os.Exit(ccstatusline.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
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
			if td, err := filepath.Abs("../../testdata"); err == nil {
				e.Setenv("TESTDATA", td)
			}
			return nil
		},
	})
}
