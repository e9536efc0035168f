package cli

import (
	"flag"
	"fmt"
	"strings"
	"time"
)

// Rule is a declared relation between flags, checked after parsing and
// before the command runs: a usage error when it does not hold.
type Rule struct {
	kind  ruleKind
	names []string // Exclusive: the flags; Requires: the flag, then what it needs (any one of); AtLeast, Positive: the flag
	min   int      // AtLeast's bound
	msg   string
}

type ruleKind int

const (
	exclusive ruleKind = iota
	requires
	atLeast
	positive
)

// Exclusive declares that at most one of the named flags may be given.
// The default message is "--a, --b and --c exclude each other".
func (f *Flags) Exclusive(names ...string) *Rule {
	r := &Rule{kind: exclusive, names: names}
	f.rules = append(f.rules, r)
	return r
}

// Requires declares that the flag name works only with one of anyOf
// given too. The default message is "--a works with --b or --c".
func (f *Flags) Requires(name string, anyOf ...string) *Rule {
	r := &Rule{kind: requires, names: append([]string{name}, anyOf...)}
	f.rules = append(f.rules, r)
	return r
}

// AtLeast declares that the int flag name is min or more, given or
// not: "--workers must be 1 or more, not 0". On a duration flag, min is
// in nanoseconds, and 0 reads "--wait-timeout must not be negative".
func (f *Flags) AtLeast(name string, min int) *Rule {
	r := &Rule{kind: atLeast, names: []string{name}, min: min}
	f.rules = append(f.rules, r)
	return r
}

// Positive declares that the int or duration flag name is above zero,
// given or not: "--poll must be positive".
func (f *Flags) Positive(name string) *Rule {
	r := &Rule{kind: positive, names: []string{name}}
	f.rules = append(f.rules, r)
	return r
}

// Says replaces the rule's message, for a rule that needs its reason
// told ("--branch and --follow exclude each other: the active branch
// moves as the session runs").
func (r *Rule) Says(msg string) *Rule {
	r.msg = msg
	return r
}

// Given reports whether the named flag was given on the command line, a
// boolean flag as true (`--x=false` is not giving it).
func (f *Flags) Given(name string) bool {
	if !f.Visited(name) {
		return false
	}
	fl := f.fs.Lookup(name)
	if fl != nil && isBool(fl) {
		return fl.Value.String() == "true"
	}
	return true
}

// checkRules returns the first rule that does not hold as a UsageError.
func (f *Flags) checkRules() error {
	for _, r := range f.rules {
		if r.holds(f) {
			continue
		}
		if r.msg != "" {
			return &UsageError{Msg: r.msg}
		}
		return &UsageError{Msg: r.message(f)}
	}
	return nil
}

func (r *Rule) holds(f *Flags) bool {
	switch r.kind {
	case atLeast:
		n, _, ok := f.number(r.names[0])
		return ok && n >= int64(r.min)
	case positive:
		n, _, ok := f.number(r.names[0])
		return ok && n > 0
	case exclusive:
		n := 0
		for _, name := range r.names {
			if f.Given(name) {
				n++
			}
		}
		return n <= 1
	default:
		if !f.Given(r.names[0]) {
			return true
		}
		for _, name := range r.names[1:] {
			if f.Given(name) {
				return true
			}
		}
		return false
	}
}

func (r *Rule) message(f *Flags) string {
	dashed := make([]string, len(r.names))
	for i, n := range r.names {
		dashed[i] = "--" + n
	}
	switch r.kind {
	case exclusive:
		return andList(dashed) + " exclude each other"
	case atLeast, positive:
		n, duration, ok := f.number(r.names[0])
		switch {
		case !ok:
			return "cli: " + dashed[0] + " is not an int or duration flag: it cannot have a minimum"
		case r.kind == positive:
			return dashed[0] + " must be positive"
		case duration && r.min == 0:
			return dashed[0] + " must not be negative"
		case duration:
			return fmt.Sprintf("%s must be %s or more, not %s", dashed[0], time.Duration(r.min), time.Duration(n))
		}
		return fmt.Sprintf("%s must be %d or more, not %d", dashed[0], r.min, n)
	}
	return dashed[0] + " works with " + strings.Join(dashed[1:], " or ")
}

// number is the value of the named int or duration flag (nanoseconds),
// whether it is a duration, and whether it is either: a rule on a flag of
// another type, or on no flag, never holds, so that every test of the
// command shows the mistake.
func (f *Flags) number(name string) (n int64, duration, ok bool) {
	fl := f.fs.Lookup(name)
	if fl == nil {
		return 0, false, false
	}
	switch v := fl.Value.(flag.Getter).Get().(type) {
	case int:
		return int64(v), false, true
	case time.Duration:
		return int64(v), true, true
	}
	return 0, false, false
}

// andList joins words as "a, b and c".
func andList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
