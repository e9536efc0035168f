package contract

import (
	"os"

	"github.com/ccpipe/ccpipe/lib/cli"
)

// system is the process's own System with the test machine's home and
// CLAUDE_CONFIG_DIR ("" for none).
func system(home, configDir string) cli.System {
	sys := cli.OS()
	sys.Home = home
	sys.Getenv = func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return configDir
		}
		return os.Getenv(k)
	}
	return sys
}
