// Package cchook is the cc-hook command.
package cchook

import (
	"errors"
	"io"

	"github.com/ccpipe/ccpipe/lib/cli"
)

// Run runs cc-hook.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli.Command{
		Name:     "cc-hook",
		Synopsis: "cc-hook [flags]",
		Help:     "usage: cc-hook [flags]",
		Run:      func(env *cli.Env, args []string) error { return errors.New("not implemented yet") },
	}
	return c.Main(args, stdin, stdout, stderr)
}
