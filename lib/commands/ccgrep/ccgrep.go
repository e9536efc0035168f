// Package ccgrep is the cc-grep command.
package ccgrep

import (
	"errors"
	"io"

	"github.com/ccpipe/ccpipe/lib/cli"
)

// Run runs cc-grep.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli.Command{
		Name:     "cc-grep",
		Synopsis: "cc-grep [flags]",
		Help:     "usage: cc-grep [flags]",
		Run:      func(env *cli.Env, args []string) error { return errors.New("not implemented yet") },
	}
	return c.Main(args, stdin, stdout, stderr)
}
