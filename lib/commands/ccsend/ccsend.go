// Package ccsend is the cc-send command.
package ccsend

import (
	"errors"
	"io"

	"github.com/ccpipe/ccpipe/lib/cli"
)

// Run runs cc-send.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli.Command{
		Name:     "cc-send",
		Synopsis: "cc-send [flags]",
		Help:     "usage: cc-send [flags]",
		Run:      func(env *cli.Env, args []string) error { return errors.New("not implemented yet") },
	}
	return c.Main(args, stdin, stdout, stderr)
}
