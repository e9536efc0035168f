package rules

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ccpipe/ccpipe/lib/hooks"
	"github.com/ccpipe/ccpipe/lib/spell"
)

// Problem is a field a rule's condition reads that no payload the rule
// can see ever has: the condition is then never true (or always true
// under `not`), a rule that silently never fires.
type Problem struct {
	Rule *Rule `json:"-"`
	// Name and Line locate the rule (Name is null when it has none).
	Name *string `json:"rule"`
	Line int     `json:"line"`
	// Field is the path read, up to the first name that is missing
	// (".tool_input.content" of ".tool_input.content.x").
	Field string `json:"field"`
	// MissingIn are the events (for a payload field) or tools (for a
	// tool_input field) the rule matches, none of which has it.
	MissingIn []string `json:"missing_in"`
	// DidYouMean is the nearest real field, as a path; null when none is
	// near.
	DidYouMean *string `json:"did_you_mean"`
	Message    string  `json:"message"`
}

func (p Problem) String() string { return p.Message }

// LintError is every problem of a rule file, as one error.
type LintError struct{ Problems []Problem }

func (e *LintError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Message
	}
	return strings.Join(msgs, "; ")
}

// Lint checks every path each rule's "if" reads against the payload
// fields of each event the rule names and, for the tool events, against
// the input schema of each tool its matcher can match (the tool schemas
// of Claude Code 2.1.328). A path is a problem when no event or tool of
// the rule can have it. A rule whose matcher is a regex or names a tool
// without a known schema (an MCP tool) leaves tool_input unchecked. Lint
// compiles the rules first: their own errors come back as the error.
func (f *File) Lint() ([]Problem, error) { return f.lint("") }

// lint checks the rules naming event ("" for all), compiling them first.
func (f *File) lint(event string) ([]Problem, error) {
	var out []Problem
	for _, r := range f.Rules {
		if event != "" && !slices.Contains(r.Events, event) {
			continue
		}
		if err := r.prepare(); err != nil {
			return nil, err
		}
		out = append(out, r.lintMatcher()...)
		if r.cond == nil {
			continue
		}
		paths := r.cond.Paths() // compiled by prepare
		seen := map[string]bool{}
		for _, p := range paths {
			// .a.b after .a: one problem, at the first missing name.
			if pr := r.lintPath(p); pr != nil && !seen[pr.Message] {
				seen[pr.Message] = true
				out = append(out, *pr)
			}
		}
	}
	return out, nil
}

// LintError returns the problems of the rules naming event ("" for every
// rule) as a *LintError (nil when there are none), or the rule file's own
// error. cc-hook run checks the rules of the payload's event only, the
// ones it compiles anyway.
func (f *File) LintError(event string) error {
	ps, err := f.lint(event)
	if err != nil {
		return err
	}
	if len(ps) > 0 {
		return &LintError{Problems: ps}
	}
	return nil
}

// IsLint reports whether err is a lint finding (not a broken rule file).
func IsLint(err error) bool {
	var le *LintError
	return errors.As(err, &le)
}

// tools returns the tools the rule's matcher can match when that set is
// closed and every one of them has a known schema; ok is false otherwise
// (match-all, a regex, an MCP or unknown tool: tool_input is then open).
func (r *Rule) tools() (names []string, ok bool) {
	if r.matchAll || r.re != nil || len(r.names) == 0 {
		return nil, false
	}
	for _, n := range r.names {
		if !hooks.KnownTool(n) {
			return nil, false
		}
	}
	return r.names, true
}

// lintMatcher finds the names of a plain matcher that are no tool but
// near one (Bassh): the rule would never fire. A name near none is left
// alone (an MCP tool, one added after 2.1.328).
func (r *Rule) lintMatcher() []Problem {
	var out []Problem
	for _, n := range r.names {
		if hooks.KnownTool(n) {
			continue
		}
		s := spell.Suggest(n, hooks.Tools())
		if s == "" {
			continue
		}
		p := Problem{Rule: r, Line: r.line, Field: "matcher", MissingIn: []string{}, DidYouMean: &s,
			Message: fmt.Sprintf("%s: matcher names %q, which no tool of Claude Code 2.1.328 is (did you mean %s?)", r.Label(), n, s)}
		if r.Name != "" {
			p.Name = &r.Name
		}
		out = append(out, p)
	}
	return out
}

// lintPath checks one path; nil when some event or tool of the rule can
// hold it.
func (r *Rule) lintPath(path []string) *Problem {
	var missing []*hooks.Missing
	tools, closed := r.tools()
	for _, e := range r.Events {
		if !hooks.TakesToolInput(e) || !closed {
			m := hooks.CheckPath(e, "", path)
			if m == nil {
				return nil
			}
			missing = append(missing, m)
			continue
		}
		for _, t := range tools {
			m := hooks.CheckPath(e, t, path)
			if m == nil {
				return nil
			}
			missing = append(missing, m)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	m := missing[0]
	p := &Problem{Rule: r, Line: r.line, Field: strings.ReplaceAll("."+m.Field, ".[]", "[]")}
	if r.Name != "" {
		p.Name = &r.Name
	}
	for _, m := range missing {
		if !slices.Contains(p.MissingIn, m.Where) {
			p.MissingIn = append(p.MissingIn, m.Where)
		}
	}
	// The field, the suggestion and the message name the first place it
	// is missing.
	segs := strings.Split(m.Field, ".")
	last := segs[len(segs)-1]
	what := "payload"
	if hooks.KnownTool(m.Where) {
		what = "tool_input"
	}
	msg := fmt.Sprintf("%s reads .%s, which %s never has", r.Label(), strings.ReplaceAll(m.Field, ".[]", "[]"), possessive(p.MissingIn, what))
	if c := hooks.Closest(last, m.Known); c != "" {
		mean := "." + strings.Join(append(segs[:len(segs)-1:len(segs)-1], c), ".")
		mean = strings.ReplaceAll(mean, ".[]", "[]")
		p.DidYouMean = &mean
		msg += fmt.Sprintf(" (did you mean %s?)", c)
	}
	if len(m.Known) > 0 {
		msg += fmt.Sprintf("; %s has %s", possessive(p.MissingIn[:1], what), strings.Join(m.Known, ", "))
	}
	p.Message = msg
	return p
}

// possessive is "Edit's tool_input", "the Stop and SubagentStop payloads".
func possessive(where []string, what string) string {
	if len(where) == 1 {
		return where[0] + "'s " + what
	}
	return strings.Join(where[:len(where)-1], "'s, ") + "'s or " + where[len(where)-1] + "'s " + what
}
