package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// dispatch runs the subcommand named by the first argument. Without one
// it is a usage error; -h (or `help`, `help SUB`), --version and
// --completion are the parent's; an unknown word is a usage error with a
// "did you mean". A subcommand reports its errors under the parent's name
// (`cc-cassette: ...`).
func (c *Command) dispatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case IsDocArg(args):
		d := c.Doc()
		for _, sub := range c.Subcommands {
			d.Subcommands = append(d.Subcommands, c.child(sub).Doc())
		}
		PrintDoc(stdout, d)
		return ExitOK
	case len(args) > 0 && args[0] == completeArg:
		// A subcommand completes its own flags and arguments.
		if len(args) > 2 {
			if sub := c.Subcommand(args[1]); sub != nil {
				return c.child(sub).Main(append([]string{completeArg}, args[2:]...), stdin, stdout, stderr)
			}
		}
		return c.leaf().Main(args, stdin, stdout, stderr)
	case len(args) == 0:
		fmt.Fprintf(stderr, "%s: a command is needed (%s)\nRun '%s -h' for help.\n", c.Name, strings.Join(c.subNames(), ", "), c.Name)
		return ExitUsage
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		if len(args) > 1 && args[0] == "help" {
			return c.dispatch([]string{args[1], "-h"}, stdin, stdout, stderr)
		}
		fmt.Fprintln(stdout, c.helpText())
		return ExitOK
	case "--version", "-version", "--completion", "-completion":
		return c.leaf().Main(args, stdin, stdout, stderr)
	}
	sub := c.Subcommand(args[0])
	if sub == nil {
		fmt.Fprintf(stderr, "%s: unknown command %q (%s)%s\nRun '%s -h' for help.\n",
			c.Name, args[0], strings.Join(c.subNames(), ", "), DidYouMean(args[0], c.subNames()), c.Name)
		return ExitUsage
	}
	return c.child(sub).Main(args[1:], stdin, stdout, stderr)
}

// Subcommand returns the subcommand named name, or nil.
func (c *Command) Subcommand(name string) *Command {
	for _, sub := range c.Subcommands {
		if sub.Name == name {
			return sub
		}
	}
	return nil
}

func (c *Command) subNames() []string {
	names := make([]string, len(c.Subcommands))
	for i, sub := range c.Subcommands {
		names[i] = sub.Name
	}
	return names
}

// child is sub as it runs: under the parent's name, its help and docs
// under "parent sub".
func (c *Command) child(sub *Command) *Command {
	cc := *sub
	cc.Name, cc.path = c.Name, c.Name+" "+sub.Name
	if cc.Sys == nil {
		cc.Sys = c.Sys
	}
	return &cc
}

// leaf is the parent as a plain command: its shared flags, and the
// subcommand names to complete its first word.
func (c *Command) leaf() *Command {
	l := *c
	l.Subcommands = nil
	if l.Run == nil {
		l.Run = func(*Env, []string) error { return Usagef("a command is needed") }
	}
	names := c.subNames()
	l.Complete = func(ctx context.Context, flag string, args []string) []string {
		if flag == "" && len(args) == 0 {
			return names
		}
		if c.Complete != nil {
			return c.Complete(ctx, flag, args)
		}
		return nil
	}
	return &l
}

// SubcommandList is the "Commands:" block of a parent's help: each
// subcommand with its Short, aligned.
func SubcommandList(subs []*Command) string {
	width := 0
	for _, sub := range subs {
		width = max(width, len(sub.Name))
	}
	var b strings.Builder
	for _, sub := range subs {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, sub.Name, sub.Short)
	}
	return strings.TrimRight(b.String(), "\n")
}
