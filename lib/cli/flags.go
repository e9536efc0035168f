package cli

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ccpipe/ccpipe/lib/quote"
)

// Flags is a stdlib FlagSet plus the flags every command shares. Unlike a
// bare FlagSet it accepts flags after positional arguments
// (`cc-extract shell --errors`) and stops only at `--`.
type Flags struct {
	fs  *flag.FlagSet
	ids func(key string) bool // RecordFormats'

	JQ         string
	Raw        bool
	JQArgs     [][2]string // --arg NAME VALUE, in order
	help       bool
	version    bool
	completion string
	compact    bool // jq's -c, accepted: the output is compact already

	aliases map[string]string   // long name -> short name
	enums   map[string][]string // long name -> the values of an Enum flag
	rules   []*Rule             // Exclusive and Requires, in declaration order

	dashed []string // the arguments after the first "--"
	dash   bool     // whether there was a "--"
	noJQ   string   // why --jq does not apply (Command.NoJQ); "": it does
}

// AfterDash returns the arguments after the first "--" and whether there
// was one. They are also the last of the positional arguments; a command
// that runs another (cc-cassette record -- claude ...) tells them apart
// with it.
func (f *Flags) AfterDash() ([]string, bool) { return f.dashed, f.dash }

// newFlags is a command's flag set with the shared flags: --jq, -r, -c
// and --arg unless noJQ says why they do not apply to it.
func newFlags(name, noJQ string) *Flags {
	f := &Flags{fs: flag.NewFlagSet(name, flag.ContinueOnError), aliases: map[string]string{}, enums: map[string][]string{}, noJQ: noJQ}
	f.fs.SetOutput(io.Discard)
	f.fs.Usage = func() {}
	if noJQ == "" {
		f.StringVarP(&f.JQ, "jq", "q", "", "jq `EXPR` applied to each output record (gojq; each within 10 s and 1 GiB)")
		f.BoolVarP(&f.Raw, "raw-output", "r", false, "with --jq, print string results without quotes")
		f.BoolVarP(&f.compact, "compact-output", "c", false, "accepted as jq's -c: the output is always compact")
	}
	f.BoolVarP(&f.help, "help", "h", false, "print this help and exit")
	f.fs.BoolVar(&f.version, "version", false, "print the version and exit")
	f.Enum(&f.completion, "completion", "", "print the completion script for `SHELL` and exit", Shells)
	return f
}

// StringVar registers a string flag.
func (f *Flags) StringVar(p *string, name, value, usage string) {
	f.fs.StringVar(p, name, value, usage)
}

// StringVarP registers a string flag with a one-letter alias.
func (f *Flags) StringVarP(p *string, name, short, value, usage string) {
	f.fs.StringVar(p, name, value, usage)
	f.fs.StringVar(p, short, value, usage)
	f.aliases[name] = short
}

// BoolVar registers a boolean flag.
func (f *Flags) BoolVar(p *bool, name string, value bool, usage string) {
	f.fs.BoolVar(p, name, value, usage)
}

// BoolVarP registers a boolean flag with a one-letter alias.
func (f *Flags) BoolVarP(p *bool, name, short string, value bool, usage string) {
	f.fs.BoolVar(p, name, value, usage)
	f.fs.BoolVar(p, short, value, usage)
	f.aliases[name] = short
}

// IntVar registers an int flag.
func (f *Flags) IntVar(p *int, name string, value int, usage string) {
	f.fs.IntVar(p, name, value, usage)
}

// IntVarP registers an int flag with a one-letter alias.
func (f *Flags) IntVarP(p *int, name, short string, value int, usage string) {
	f.fs.IntVar(p, name, value, usage)
	f.fs.IntVar(p, short, value, usage)
	f.aliases[name] = short
}

// DurationVar registers a duration flag.
func (f *Flags) DurationVar(p *time.Duration, name string, value time.Duration, usage string) {
	f.fs.DurationVar(p, name, value, usage)
}

// Func registers a flag that calls fn for each occurrence (a flag whose
// value is checked or split as it is read; StringsVar for a plain list).
func (f *Flags) Func(name, usage string, fn func(string) error) { f.fs.Func(name, usage, fn) }

// StringsVar registers a repeatable string flag: each occurrence appends
// its value to *p, in the order given.
func (f *Flags) StringsVar(p *[]string, name, usage string) {
	f.fs.Func(name, usage, func(s string) error {
		*p = append(*p, s)
		return nil
	})
}

// Var registers a flag.Value.
func (f *Flags) Var(v flag.Value, name, usage string) { f.fs.Var(v, name, usage) }

// Visited reports whether the named flag was given on the command line.
func (f *Flags) Visited(name string) bool {
	seen := false
	f.fs.Visit(func(fl *flag.Flag) {
		if fl.Name == name || f.aliases[name] == fl.Name {
			seen = true
		}
	})
	return seen
}

// parse parses args and returns the positional arguments. Everything after
// the first `--` is positional, verbatim.
func (f *Flags) parse(args []string) ([]string, error) {
	var rest []string
	for i, a := range args {
		if a == "--" {
			rest = args[i+1:]
			args = args[:i]
			f.dashed, f.dash = rest, true
			break
		}
	}
	args, err := f.takeJQArgs(args)
	if err != nil {
		return nil, err
	}
	var pos []string
	for {
		if err := f.fs.Parse(args); err != nil {
			if f.refusedJQ(err) {
				return nil, &UsageError{Msg: f.noJQ}
			}
			return nil, &UsageError{Msg: flagMessage(err.Error()) + f.suggestFlag(err.Error())}
		}
		if f.fs.NArg() == 0 {
			break
		}
		pos = append(pos, f.fs.Arg(0))
		args = f.fs.Args()[1:]
	}
	return append(pos, rest...), nil
}

// suggestFlag is the "did you mean" of an unknown flag's error.
func (f *Flags) suggestFlag(msg string) string {
	name, ok := strings.CutPrefix(msg, "flag provided but not defined: -")
	if !ok {
		return ""
	}
	var longs []string
	for _, n := range f.names() {
		longs = append(longs, strings.TrimPrefix(n, "--"))
	}
	if s := Suggest(strings.TrimPrefix(name, "-"), longs); s != "" {
		return "; did you mean --" + s + "?"
	}
	return ""
}

// takeJQArgs removes `--arg NAME VALUE` triples, which the flag package
// cannot express (a flag with two values).
func (f *Flags) takeJQArgs(args []string) ([]string, error) {
	if f.noJQ != "" {
		return args, nil
	}
	out := args[:0:0]
	for i := 0; i < len(args); i++ {
		if args[i] != "--arg" && args[i] != "-arg" {
			out = append(out, args[i])
			continue
		}
		if i+2 >= len(args) {
			return nil, Usagef("--arg needs a NAME and a VALUE")
		}
		f.JQArgs = append(f.JQArgs, [2]string{args[i+1], args[i+2]})
		i += 2
	}
	return out, nil
}

// jqFlags are the names of the shared jq flags.
var jqFlags = map[string]bool{"jq": true, "q": true, "raw-output": true, "r": true, "compact-output": true, "c": true, "arg": true}

// refusedJQ reports whether err is a jq flag given to a command that
// prints no records (Command.NoJQ): its reason is the usage error, not
// "flag provided but not defined".
func (f *Flags) refusedJQ(err error) bool {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	return ok && f.noJQ != "" && jqFlags[name]
}

// printDefaults writes the flag table, one line per flag with its alias.
func (f *Flags) printDefaults(w io.Writer) {
	shorts := map[string]bool{}
	for _, s := range f.aliases {
		shorts[s] = true
	}
	var lines [][2]string
	f.fs.VisitAll(func(fl *flag.Flag) {
		if shorts[fl.Name] {
			return
		}
		name, usage := flag.UnquoteUsage(fl)
		left := "--" + fl.Name
		if s, ok := f.aliases[fl.Name]; ok {
			left = "-" + s + ", " + left
		} else {
			left = "    " + left
		}
		if name != "" {
			left += " " + name
		}
		lines = append(lines, [2]string{left, usage})
	})
	if f.noJQ == "" {
		lines = append(lines, [2]string{"    --arg NAME VALUE", "bind $NAME to the string VALUE in the --jq expression"})
	}
	sort.Slice(lines, func(i, j int) bool {
		return strings.TrimLeft(lines[i][0], " -") < strings.TrimLeft(lines[j][0], " -")
	})
	width := 0
	for _, l := range lines {
		width = max(width, len(l[0]))
	}
	// The descriptions wrap to fit helpWidth; under a left column too
	// wide to leave them 40, each goes on its own lines below its flag.
	indent := 2 + width + 2
	if helpWidth-indent < 40 {
		indent = 10
	}
	for _, l := range lines {
		desc := wrap(l[1], helpWidth-indent)
		if indent == 10 {
			fmt.Fprintf(w, "  %s\n", l[0])
		} else {
			fmt.Fprintf(w, "  %-*s  ", width, l[0])
			fmt.Fprintln(w, desc[0])
			desc = desc[1:]
		}
		for _, d := range desc {
			fmt.Fprintf(w, "%*s%s\n", indent, "", d)
		}
	}
}

// helpWidth is the columns -h fits in.
const helpWidth = 100

// wrap breaks s into lines of at most n columns, between words (a word
// longer than n gets a line of its own).
func wrap(s string, n int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= n:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

// Compiled on first use: only a flag error needs them, and every start
// of every command paid for them.
var (
	// flagSpelling is how the flag package names a flag in its errors:
	// one dash, whatever the user typed.
	flagSpelling = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(provided but not defined: |needs an argument: )-([\w-]+)`)
	})
	flagValue = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^invalid value ("(?:[^"\\]|\\.)*") for flag -([\w-]+): (.*)$`)
	})
)

// flagMessage rewrites a flag package error the way the flags are written
// in the help: --name (-x for a one-letter alias).
func flagMessage(msg string) string {
	dashed := func(name string) string {
		if len(name) == 1 {
			return "-" + name
		}
		return "--" + name
	}
	if m := flagValue().FindStringSubmatch(msg); m != nil {
		shown := m[1]
		if v, err := strconv.Unquote(m[1]); err == nil {
			shown = quote.Q(v)
		}
		if strings.Contains(m[3], m[1]) || strings.Contains(m[3], shown) {
			return dashed(m[2]) + ": " + m[3] // the message quotes the value already
		}
		return dashed(m[2]) + " " + shown + ": " + m[3]
	}
	msg = flagSpelling().ReplaceAllStringFunc(msg, func(m string) string {
		sub := flagSpelling().FindStringSubmatch(m)
		return sub[1] + dashed(quote.Cut(sub[2]))
	})
	return strings.Replace(msg, "flag provided but not defined: ", "unknown flag ", 1)
}
