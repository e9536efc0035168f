// Package ccentries is the cc-entries command.
package ccentries

import (
	"errors"
	"io"

	"github.com/ccpipe/ccpipe/lib/cli"
)

// Run runs cc-entries.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli.Command{
		Name:     "cc-entries",
		Synopsis: "cc-entries [flags]",
		Help:     "usage: cc-entries [flags]",
		Run:      func(env *cli.Env, args []string) error { return errors.New("not implemented yet") },
	}
	return c.Main(args, stdin, stdout, stderr)
}
