package cli

import "strings"

// Rule is a declared relation between flags, checked after parsing and
// before the command runs: a usage error when it does not hold.
type Rule struct {
	kind  ruleKind
	names []string // Exclusive: the flags; Requires: the flag, then what it needs (any one of)
	msg   string
}

type ruleKind int

const (
	exclusive ruleKind = iota
	requires
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
		return &UsageError{Msg: r.message()}
	}
	return nil
}

func (r *Rule) holds(f *Flags) bool {
	switch r.kind {
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

func (r *Rule) message() string {
	dashed := make([]string, len(r.names))
	for i, n := range r.names {
		dashed[i] = "--" + n
	}
	if r.kind == exclusive {
		return andList(dashed) + " exclude each other"
	}
	return dashed[0] + " works with " + strings.Join(dashed[1:], " or ")
}

// andList joins words as "a, b and c".
func andList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
