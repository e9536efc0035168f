package cchook

import (
	"fmt"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/hooks"
	"github.com/ccpipe/ccpipe/lib/hooks/rules"
)

// testRecord is one record of `cc-hook test`: a case and what the rule
// file answered.
type testRecord struct {
	Case     string  `json:"case"`
	Line     int     `json:"line"`
	Event    string  `json:"event"`
	Pass     bool    `json:"pass"`
	Expected string  `json:"expected"`
	Got      string  `json:"got"`
	Rule     *string `json:"rule"`
	Reason   *string `json:"reason"`
}

// test runs a rule file on its cases, for CI: one record per case; each
// mismatch also on stderr with the payload; exit 1 when any fails.
func (o *options) test(env *cli.Env, args []string) error {
	if len(args) != 2 {
		return cli.Usagef("test needs a rule file and a case file")
	}
	env.Out.SetLayout(testLayout)
	f, err := rules.LoadFile(args[0])
	if err != nil {
		return err
	}
	if err := f.LintError(""); err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	f.SkipUnless = !o.runUnless
	cases, err := rules.LoadCasesFile(args[1])
	if err != nil {
		return err
	}
	failed := 0
	for _, c := range cases {
		out := f.Test(env.Ctx, c)
		rec := testRecord{Case: c.Name, Line: c.Line, Pass: c.Passes(out), Expected: c.Decision, Got: out.Decision}
		if ev, err := eventOf(c.Payload); err == nil {
			rec.Event = ev
		}
		if c.Name == "" {
			rec.Case = c.Label()
		}
		if c.Rule != "" {
			rec.Expected += " by " + c.Rule
		}
		if out.Rule != "" {
			rec.Rule = &out.Rule
			if c.Rule != "" {
				rec.Got += " by " + out.Rule
			}
		}
		if out.Reason != "" {
			rec.Reason = &out.Reason
		}
		if !rec.Pass {
			failed++
			env.Warnf("%s: %s FAILED\n  payload:  %s\n  expected: %s\n  got:      %s%s", args[1], c.Label(), c.Payload, rec.Expected, rec.Got, reasonSuffix(out.Reason))
		}
		if err := env.Out.Write(rec); err != nil {
			return err
		}
	}
	if failed > 0 {
		return &cli.ExitError{Code: cli.ExitFail, Err: fmt.Errorf("test: %d of %d cases failed", failed, len(cases))}
	}
	return nil
}

func reasonSuffix(r string) string {
	if r == "" {
		return ""
	}
	return " (" + r + ")"
}

// eventOf is the payload's hook_event_name.
func eventOf(payload []byte) (string, error) {
	ev, err := hooks.Parse(payload)
	if err != nil {
		return "", err
	}
	return ev.EventName(), nil
}
