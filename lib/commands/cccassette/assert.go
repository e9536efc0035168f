package cccassette

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/jq"
	"github.com/ccpipe/ccpipe/lib/records"
)

const assertHelp = `usage: cc-cassette assert [flags] CASSETTE

Verifies the cassette (as verify does) and checks the expectations given,
for CI. If verification fails, every expectation is skipped and the
assertion fails. Expectations are checked in this order:
  --expect-status S          the terminal status: success, error or
                             incomplete (read from the last step only)
  --expect-final-answer T    the run_completed result, exactly
  --expect-failure-reason R  the run_failed reason, exactly
  --expect-tools a,b         each of these tools was called at least once
                             (any order, other tools too); entries are
                             trimmed
  --expect-tool-sequence a,b the toolName of every tool_call step, in
                             order, exactly (Blackbox's --expect-tools);
                             entries are trimmed; "" means no tool
  --expect JQ                beyond Blackbox: a jq predicate over the whole
                             cassette (Blackbox's JSON form, {version, id,
                             createdAt, steps, ...}); it must yield true;
                             repeatable

Output (on a terminal a table: pass, path, id, status and the first
failure; --format picks another): one record: pass, path, id, verify
(verify's record), checks
[{name (status | final_answer | failure_reason | tools | tool_sequence
| expect),
status (pass | fail | skip), expected, actual, detail}], first_failure
({kind: "verify", invariant} or {kind: "expectation", check}). Each
failed expectation is also one line on stderr.

Examples:
  $ cc-cassette assert run.ndjson --expect-status success --expect-tools Bash,Edit
  $ cc-cassette assert run.ndjson --expect-tool-sequence Read,Edit,Bash
  $ cc-cassette assert run.ndjson --expect-tool-sequence ""
  $ cc-cassette assert run.ndjson \
      --expect '[.steps[] | select(.type=="tool_result" and has("error"))] | length == 0'

Memory is bounded by the largest step, whatever the cassette's length,
except with --expect, whose jq sees the whole cassette as one document.

Exit status: 0 everything passed, 1 verification or an expectation
failed, or the cassette could not be read, 2 usage error (a bad status
name, a jq expression that does not compile).`

// Check is one expectation's result.
type Check struct {
	Name     string `json:"name"`
	Status   string `json:"status"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
	Detail   string `json:"detail"`
}

// FirstFailure names what failed first.
type FirstFailure struct {
	Kind      string              `json:"kind"`
	Invariant *cassette.Invariant `json:"invariant,omitempty"`
	Check     *Check              `json:"check,omitempty"`
}

// AssertReport is assert's record.
type AssertReport struct {
	Pass         bool            `json:"pass"`
	Path         string          `json:"path"`
	ID           string          `json:"id"`
	Verify       cassette.Report `json:"verify"`
	Checks       []Check         `json:"checks"`
	FirstFailure *FirstFailure   `json:"first_failure,omitempty"`
}

type expectations struct {
	status, finalAnswer, failureReason *string
	tools, toolSequence                *string
	jq                                 []string
}

func assertCommand() *cli.Command {
	var e expectations
	var status string
	str := func(p **string) func(string) error {
		return func(s string) error { *p = &s; return nil }
	}
	return &cli.Command{
		Name:     "assert",
		Short:    "verify plus expectations on the outcome, for CI",
		Synopsis: "cc-cassette assert CASSETTE [--expect-status S] [--expect-tools a,b] [--expect-tool-sequence a,b] ...",
		Help:     assertHelp,
		SetFlags: func(f *cli.Flags) {
			f.RecordFormats(records.IDField)
			f.Enum(&status, "expect-status", "", "expect the terminal `STATUS`", []string{cassette.StatusSuccess, cassette.StatusError, cassette.StatusIncomplete})
			f.Func("expect-final-answer", "expect this final answer `TEXT` exactly", str(&e.finalAnswer))
			f.Func("expect-failure-reason", "expect this failure `REASON` exactly", str(&e.failureReason))
			f.Func("expect-tools", "each of these `TOOLS` was called (comma-separated, any order)", str(&e.tools))
			f.Func("expect-tool-sequence", "exactly these `TOOLS` were called, in order (\"\" for none)", str(&e.toolSequence))
			f.StringsVar(&e.jq, "expect", "expect the jq `PREDICATE` over the whole cassette to be true (repeatable)")
		},
		Run: func(env *cli.Env, args []string) error {
			env.Out.SetLayout(assertLayout)
			if env.Flags.Visited("expect-status") {
				e.status = &status
			}
			return runAssert(env, args, e)
		},
	}
}

// assertLayout is assert's record as a table row (a terminal's default
// view): the cassette, whether it passed and, when not, the first failed
// expectation (what was expected, what the cassette shows) or invariant.
var assertLayout = cli.Layout{Columns: []cli.Column{
	{Head: "Pass", Keys: []string{"pass"}},
	{Head: "Path", Keys: []string{"path"}, Kind: cli.Path},
	{Head: "Status", Keys: []string{"verify.status"}},
	{Head: "Failed", Keys: []string{"first_failure.check.name", "first_failure.invariant.name"}, Keep: true},
	{Head: "Expected", Keys: []string{"first_failure.check.expected"}},
	{Head: "Got", Keys: []string{"first_failure.check.actual", "first_failure.invariant.detail"}, Keep: true},
	{Head: "ID", Keys: []string{"id"}},
}}

func runAssert(env *cli.Env, args []string, e expectations) error {
	if len(args) > 1 {
		return cli.Usagef("assert takes one cassette")
	}
	var used []string // --expect-tools: the tools that must have been called
	if e.tools != nil {
		for _, t := range toolList(*e.tools) {
			if t != "" && !slices.Contains(used, t) {
				used = append(used, t)
			}
		}
		if len(used) == 0 {
			return cli.Usagef(`--expect-tools %q names no tool; to expect that no tool was called: --expect-tool-sequence ""`, *e.tools)
		}
	}
	filters := make([]*jq.Filter, len(e.jq))
	for i, expr := range e.jq {
		f, err := jq.Compile(expr, nil)
		if err != nil {
			return cli.Usagef("--expect: %v", err)
		}
		filters[i] = f
	}
	names, err := inputs(env, args, "cassette")
	if err != nil {
		return err
	}
	// Without --expect (jq over the whole document) the cassette is read a
	// step at a time: memory stays bounded by the largest step.
	var c cassette.Cassette
	var sc *streamed
	if len(filters) > 0 {
		if c, err = loadOne(env, names[0]); err != nil {
			return err
		}
	} else {
		n := 0
		err := eachStreamed(env, names[0], nil, func(s *streamed) error {
			n++
			sc = s
			return nil
		})
		switch {
		case err == nil && n == 0:
			err = fmt.Errorf("%s: %v", displayName(names[0]), cassette.ErrEmpty)
		case err == nil && n != 1:
			err = fmt.Errorf("%s: holds %d cassettes; this command takes one", displayName(names[0]), n)
		}
		if err != nil {
			return err
		}
	}
	rep := AssertReport{Path: displayName(names[0]), Checks: []Check{}}
	var out cassette.Outcome
	var tools []string
	if sc != nil {
		rep.ID, rep.Verify, out, tools = sc.ID(), sc.v.Report(), sc.Outcome(), sc.Tools
	} else {
		rep.ID, rep.Verify, out, tools = c.ID(), cassette.Verify(c), cassette.OutcomeOfCassette(c), cassette.ToolSequence(c)
	}
	rep.Verify.Path = rep.Path
	rep.Checks = append(rep.Checks, outcomeChecks(e, used, out, tools, rep.Verify.Pass)...)
	if len(filters) > 0 {
		rep.Checks = append(rep.Checks, jqChecks(filters, e.jq, c, rep.Verify.Pass)...)
	}
	rep.Pass = rep.Verify.Pass
	if !rep.Verify.Pass {
		rep.FirstFailure = &FirstFailure{Kind: "verify", Invariant: rep.Verify.FirstFailure}
	}
	for i := range rep.Checks {
		ch := &rep.Checks[i]
		if ch.Status != cassette.Fail {
			continue
		}
		if rep.Pass {
			rep.Pass = false
			rep.FirstFailure = &FirstFailure{Kind: "expectation", Check: ch}
		}
		env.Warnf("%s: expectation %s failed: expected %s, got %s", rep.Path, ch.Name, ch.Expected, ch.Actual)
	}
	if !rep.Verify.Pass {
		f := rep.Verify.FirstFailure
		at := ""
		if f.StepIndex != nil {
			at = fmt.Sprintf(" at step %d", *f.StepIndex)
		}
		env.Warnf("%s: verification failed: %s%s: %s", rep.Path, f.Name, at, f.Detail)
	}
	if err := env.Out.Write(rep); err != nil {
		return err
	}
	if !rep.Pass {
		return exitFail()
	}
	return nil
}

// outcomeChecks are the checks of the expectation flags given, in
// Blackbox's order: status, final_answer, failure_reason, then tools
// (each of used was called) and tool_sequence (exactly, in order). Each
// is skipped when the cassette failed verification.
func outcomeChecks(e expectations, used []string, out cassette.Outcome, tools []string, verified bool) []Check {
	var checks []Check
	// exp is one expectation: what was asked, what the cassette shows
	// ("(none)" when absent) and whether they agree.
	type exp struct {
		name, want, actual, detail string
		match                      bool
	}
	// answer compares the final answer (or failure reason) when the run
	// ended with that status; absent never equals.
	answer := func(name, want, status, detail string) exp {
		a, ok := out.Answer()
		if out.Status != status || !ok {
			return exp{name, want, "(none)", detail, false}
		}
		return exp{name, want, a, detail, a == want}
	}
	var exps []exp
	if e.status != nil {
		exps = append(exps, exp{"status", *e.status, out.Status, "status mismatch", out.Status == *e.status})
	}
	if e.finalAnswer != nil {
		exps = append(exps, answer("final_answer", *e.finalAnswer, cassette.StatusSuccess, "final answer mismatch"))
	}
	if e.failureReason != nil {
		exps = append(exps, answer("failure_reason", *e.failureReason, cassette.StatusError, "failure reason mismatch"))
	}
	if e.tools != nil {
		var distinct, missing []string
		for _, t := range tools {
			if !slices.Contains(distinct, t) {
				distinct = append(distinct, t)
			}
		}
		for _, t := range used {
			if !slices.Contains(distinct, t) {
				missing = append(missing, t)
			}
		}
		exps = append(exps, exp{"tools", showList(used), showList(distinct), "not called: " + strings.Join(missing, ", "), len(missing) == 0})
	}
	if e.toolSequence != nil {
		want := toolList(*e.toolSequence)
		exps = append(exps, exp{"tool_sequence", showList(want), showList(tools), "tool sequence mismatch", slices.Equal(want, tools)})
	}
	for _, x := range exps {
		ch := Check{Name: x.name, Expected: x.want, Actual: x.actual}
		switch {
		case !verified:
			ch.Status, ch.Detail = cassette.Skip, "skipped (verification failed)"
		case x.match:
			ch.Status, ch.Detail = cassette.Pass, x.actual
		default:
			ch.Status, ch.Detail = cassette.Fail, x.detail
		}
		checks = append(checks, ch)
	}
	return checks
}

// jqChecks runs each --expect predicate over the whole cassette.
func jqChecks(filters []*jq.Filter, exprs []string, c cassette.Cassette, verified bool) []Check {
	var checks []Check
	doc := cassette.ToAny(c.Value())
	for i, f := range filters {
		ch := Check{Name: "expect", Expected: exprs[i] + " is true"}
		switch {
		case !verified:
			ch.Status, ch.Actual, ch.Detail = cassette.Skip, "(not run)", "skipped (verification failed)"
		default:
			var results []any
			err := f.Run(doc, func(v any) error { results = append(results, v); return nil })
			switch {
			case err != nil && !errors.Is(err, jq.ErrHalt):
				ch.Status, ch.Actual, ch.Detail = cassette.Fail, "error", "jq error: "+err.Error()
			case len(results) == 1 && results[0] == true:
				ch.Status, ch.Actual, ch.Detail = cassette.Pass, "true", "true"
			default:
				b, _ := jq.Marshal(results)
				ch.Status, ch.Actual, ch.Detail = cassette.Fail, string(b), "predicate not true"
			}
		}
		checks = append(checks, ch)
	}
	return checks
}

// toolList is a comma-separated list of tool names, each trimmed, as
// Blackbox reads --expect-tools: "" is no tool.
func toolList(s string) []string {
	l := []string{}
	if s != "" {
		for _, t := range strings.Split(s, ",") {
			l = append(l, strings.TrimSpace(t))
		}
	}
	return l
}

// showList displays a tool list as Blackbox does: joined by ", ", or
// (none).
func showList(l []string) string {
	if len(l) == 0 {
		return "(none)"
	}
	return strings.Join(l, ", ")
}
