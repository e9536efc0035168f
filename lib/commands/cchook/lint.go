package cchook

import (
	"fmt"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/hooks/rules"
)

// lintRecord is one record of `cc-hook lint`: a field a rule reads that
// no payload it can see has.
type lintRecord struct {
	File string `json:"file"`
	rules.Problem
}

// lint checks rule files: each rule compiles, its reply is one Claude Code
// takes, and every field its condition reads exists in some payload it
// matches. One record per problem; exit 1 when there is any.
func (o *options) lint(env *cli.Env, args []string) error {
	if len(args) == 0 {
		return cli.Usagef("lint needs a rule file")
	}
	env.Out.SetLayout(lintLayout)
	total := 0
	for _, path := range args {
		f, err := rules.LoadFile(path)
		if err != nil {
			return err
		}
		ps, err := f.Lint()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, p := range ps {
			if err := env.Out.Write(lintRecord{File: path, Problem: p}); err != nil {
				return err
			}
		}
		total += len(ps)
	}
	if total > 0 {
		return &cli.ExitError{Code: cli.ExitFail, Err: fmt.Errorf("lint: problems: %d", total)}
	}
	return nil
}
