// Package ccsessions is the cc-sessions command.
package ccsessions

import (
	"errors"
	"io"

	"github.com/ccpipe/ccpipe/lib/cli"
)

// Run runs cc-sessions.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli.Command{
		Name:     "cc-sessions",
		Synopsis: "cc-sessions [flags]",
		Help:     "usage: cc-sessions [flags]",
		Run:      func(env *cli.Env, args []string) error { return errors.New("not implemented yet") },
	}
	return c.Main(args, stdin, stdout, stderr)
}
