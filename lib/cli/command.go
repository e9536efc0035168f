package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"

	"github.com/ccpipe/ccpipe/lib/jq"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/syncwriter"
)

// ClaudeCodeVersion is the Claude Code release ccpipe was checked against.
const ClaudeCodeVersion = "2.1.328"

// Command describes one cc-* command.
type Command struct {
	Name string // "cc-profiles"; a subcommand's own word ("import")
	// Short is the one-line summary: the first line of -h, the man page's
	// NAME line, the command list of a command with subcommands.
	Short    string
	Synopsis string // "cc-profiles [flags]", shown after a usage error
	Help     string // the -h text before the flag table
	// SetFlags registers the command's own flags (into its options struct).
	SetFlags func(*Flags)
	// Run does the work. Positional arguments are passed in args.
	Run func(env *Env, args []string) error
	// Complete, when set, offers words for shell completion (see
	// --completion): for the value of the flag named flag (its long
	// name), or with flag "" for the positional argument after args. The
	// shell filters them by what was typed.
	Complete func(ctx context.Context, flag string, args []string) []string
	// NoJQ, when set, says why --jq does not apply to a command that
	// prints no records (a page, a reply for Claude Code): -h offers no
	// --jq, -r, -c or --arg, and giving one is a usage error saying this.
	NoJQ string
	// Sys is the System the command runs in (its RunWith's); it must be
	// given: a command without one fails before it runs, rather than
	// reading the real machine in a test. A subcommand without one runs in
	// its parent's.
	Sys *System
	// Subcommands, when set, make the command dispatch on its first word
	// (see dispatch): each is a Command of its own, with its own flags,
	// help and completion. Run and SetFlags of the parent are not used.
	Subcommands []*Command

	path string // a subcommand's full name ("cc-cassette import"), for its help and docs
}

// Env is what a running command gets: its streams, the shared flags and
// the record output.
type Env struct {
	Ctx    context.Context
	Name   string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer // safe for concurrent use: one Write is one whole message
	Out    *Output
	Flags  *Flags

	sys *System // the command's (nil: the OS)
	skipCounter
}

// Terminal reports whether stdout is a terminal and how wide (0 when
// unknown; COLUMNS when the terminal does not say), as the command's
// System sees it: for a command that writes its own text for people
// rather than records (which a table shows).
func (e *Env) Terminal() (width int, ok bool) {
	s := e.sys
	if s == nil {
		s = &System{} // an Env outside Main: nothing of the real machine
	}
	width, ok = terminal(s, e.Stdout)
	if n, err := strconv.Atoi(s.Env("COLUMNS")); ok && width == 0 && err == nil && n > 0 {
		width = n
	}
	return width, ok
}

// HasInput reports whether stdin holds records to read (see HasInput).
func (e *Env) HasInput() bool { return HasInput(e.Stdin) }

// Warnf prints one line `cc-x: message` on stderr, secrets masked.
func (e *Env) Warnf(format string, a ...any) {
	fmt.Fprintf(e.Stderr, "%s: %s\n", e.Name, Mask(fmt.Sprintf(format, a...)))
}

// Main runs the command and returns its exit code. It is what a
// cmd/<name>/main.go passes to os.Exit.
func (c *Command) Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if c.Sys == nil {
		return c.report(stderr, fmt.Errorf("%s has no System: RunWith must give one (cli.OS() for the real one)", c.fullName()))
	}
	if len(c.Subcommands) > 0 {
		return c.dispatch(args, stdin, stdout, stderr)
	}
	if len(args) > 0 && args[0] == completeArg {
		c.complete(context.Background(), stdout, args[1:])
		return ExitOK
	}
	if len(args) == 1 && args[0] == docArg {
		c.doc(stdout)
		return ExitOK
	}
	f := newFlags(c.Name, c.NoJQ)
	if c.SetFlags != nil {
		c.SetFlags(f)
	}
	pos, err := f.parse(args)
	if err != nil {
		return c.report(stderr, err)
	}
	if f.help {
		fmt.Fprint(stdout, c.helpText()+"\n\nFlags:\n")
		f.printDefaults(stdout)
		return ExitOK
	}
	if f.completion != "" {
		script, _ := completionScript(f.completion, c.Name) // Enum checked the shell
		fmt.Fprint(stdout, script)
		return ExitOK
	}
	if f.version {
		fmt.Fprintf(stdout, "%s %s (checked against Claude Code %s)\n", c.Name, version(), ClaudeCodeVersion)
		return ExitOK
	}
	out := &Output{w: ndjson.NewWriter(stdout), raw: f.Raw}
	if f.JQ != "" {
		if out.filter, err = jq.Compile(f.JQ, f.JQArgs); err != nil {
			return c.report(stderr, &UsageError{Msg: "--jq: " + err.Error()})
		}
	} else if f.Raw || len(f.JQArgs) > 0 {
		return c.report(stderr, Usagef("--raw-output and --arg need --jq"))
	}
	if err := f.checkRules(); err != nil {
		return c.report(stderr, err)
	}
	if err := out.setFormat(f, c.Sys, stdout); err != nil {
		return c.report(stderr, err)
	}
	if stdout == os.Stdout {
		// Turn SIGPIPE into EPIPE so that `cc-x | head -1` ends quietly with 0.
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGPIPE)
		defer signal.Stop(ch)
	}
	code, err := runInterruptible(func(ctx context.Context) error {
		env := &Env{Ctx: ctx, Name: c.Name, Stdin: stdin, Stdout: stdout, Stderr: syncwriter.New(stderr), Out: out, Flags: f, sys: c.Sys}
		out.warn = env.Warnf
		// A command that reads stdin its own way still gets the count of
		// the SkipInput warnings not shown.
		defer env.flushSkips()
		return c.Run(env, pos)
	})
	if code >= 0 {
		return code // a signal: buffered output is dropped, not half-written
	}
	if ferr := out.finish(); err == nil {
		err = ferr
	}
	if err == nil && out.failed > 0 {
		err = errJQFailed
	}
	if note := out.emptyNote(); note != "" && (err == nil || errors.Is(err, ErrNoMatch)) {
		fmt.Fprintf(stderr, "%s: %s\n", c.Name, note)
	}
	for _, n := range out.notes {
		if out.term && out.n > 0 {
			fmt.Fprintf(stderr, "%s: note: %s\n", c.Name, Mask(n))
		}
	}
	return c.report(stderr, err)
}

// fullName is the name the help and docs show: "cc-cassette import"
// for a subcommand.
func (c *Command) fullName() string {
	if c.path != "" {
		return c.path
	}
	return c.Name
}

// helpText is -h's text: the one-line summary, then the help.
func (c *Command) helpText() string {
	help := strings.TrimRight(c.Help, "\n")
	if c.Short == "" {
		return help
	}
	return c.fullName() + " - " + c.Short + "\n\n" + help
}

// report prints err once and maps it to an exit code.
func (c *Command) report(stderr io.Writer, err error) int {
	var ue *UsageError
	var ee *ExitError
	switch {
	case err == nil, errors.Is(err, errQuiet):
		return ExitOK
	case errors.Is(err, ErrNoMatch):
		return ExitFail
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s: %s\nusage: %s\nRun '%s -h' for help.\n", c.Name, Mask(ue.Msg), c.Synopsis, c.Name)
		return ExitUsage
	case errors.As(err, &ee):
		if ee.Err != nil {
			fmt.Fprintf(stderr, "%s: %s\n", c.Name, Mask(ee.Err.Error()))
		}
		return ee.Code
	default:
		fmt.Fprintf(stderr, "%s: %s\n", c.Name, Mask(err.Error()))
		return ExitFail
	}
}

// version names the build: the module version (a tag, or the
// pseudo-version `go install ...@latest` and a build in a git checkout
// stamp), else the VCS revision, else says that the build carries
// neither (-buildvcs=false, a build outside a checkout).
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return unstamped
	}
	return versionOf(bi)
}

const unstamped = "(devel, built without a module version or VCS stamp)"

func versionOf(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return unstamped
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		rev += "+dirty"
	}
	return "(devel) " + rev
}
