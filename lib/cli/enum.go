package cli

import (
	"fmt"
	"strings"

	"github.com/ccpipe/ccpipe/lib/spell"
)

// enumValue is a string flag that takes one of a fixed list of values.
// The one list drives the check at parse time, the shell completion of
// the flag's value and the values named in its help line.
type enumValue struct {
	p      *string
	values []string
}

func (e *enumValue) String() string {
	if e.p == nil {
		return ""
	}
	return *e.p
}

func (e *enumValue) Set(s string) error {
	for _, v := range e.values {
		if s == v {
			*e.p = s
			return nil
		}
	}
	return fmt.Errorf("want %s%s", OneOf(e.values), DidYouMean(s, e.values))
}

// Enum registers a string flag whose value must be one of values. The
// help line gets the values appended in parentheses, completion offers
// them, and any other value is a usage error naming them (with a "did you
// mean"). The default value need not be in the list ("" for unset).
func (f *Flags) Enum(p *string, name, value, usage string, values []string) {
	*p = value
	f.fs.Var(&enumValue{p: p, values: values}, name, usage+" ("+strings.Join(values, ", ")+")")
	f.enums[name] = values
}

// Values is the list of values of an Enum flag (nil for another flag).
func (f *Flags) Values(name string) []string { return f.enums[f.long(name)] }

// OneOf names the values a word may take, as the messages of every
// command do: "a or b" for two, "one of a, b, c" for more.
func OneOf(values []string) string {
	switch len(values) {
	case 1:
		return values[0]
	case 2:
		return values[0] + " or " + values[1]
	}
	return "one of " + strings.Join(values, ", ")
}

// DidYouMean returns "; did you mean X?" when word is a likely misspelling
// (or an unambiguous prefix) of one of candidates, else "". It ends the
// usage messages about unknown flags, values, subcommands, kinds and
// events (spell.DidYouMean: rule files say it alike).
func DidYouMean(word string, candidates []string) string { return spell.DidYouMean(word, candidates) }

// Suggest returns the candidate closest to word (spell.Suggest).
func Suggest(word string, candidates []string) string { return spell.Suggest(word, candidates) }
