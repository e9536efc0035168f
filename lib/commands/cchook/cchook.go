// Package cchook is the cc-hook command: typed Claude Code hook payloads,
// validated replies, and rule files that need no code.
package cchook

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/internal/warm"
	"github.com/ccpipe/ccpipe/lib/hooks"
	"github.com/ccpipe/ccpipe/lib/hooks/rules"
	"github.com/ccpipe/ccpipe/lib/records"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// subHelp is each subcommand's synopsis, one-line summary and
// description: its own -h, and together cc-hook's help (one text, two
// places).
var subHelp = []struct{ name, synopsis, short, text string }{
	{"run", "cc-hook run RULES.yaml [--on-error pass|block|ask]",
		"answer a hook payload on stdin from a rule file (the settings.json hook command)",
		`reads a hook payload on stdin and answers it from a rule file:
the first rule whose events, matcher, jq "if" condition and
"unless" command match prints its reply; no match prints
nothing (no opinion). A payload or rule file that cannot be used
follows --on-error: pass (default: nothing on stdout, one stderr
line, exit 1), block (the event's blocking reply, e.g. a deny),
ask (PreToolUse goes to the permission prompt).`},
	{"parse", "cc-hook parse",
		"hook payloads on stdin as typed, normalised records",
		`reads payloads (one per line, as Claude Code sends them) and
prints each as a typed, normalised record: event, the fields as
sent (a field of the wrong type as null; FileChanged's "event"
as file_event), unknown_fields, type_mismatches.`},
	{"reply", "cc-hook reply EVENT [DECISION] [--reason TEXT] [--context TEXT] [--system-message TEXT]",
		"a reply validated against the schema, for shell hooks",
		`prints a reply validated against the schema, for shell hooks.
DECISION: allow deny ask defer (PreToolUse), allow deny
(PermissionRequest, PreModelSwitch also ask), block (Stop,
SubagentStop, UserPromptSubmit, UserPromptExpansion,
PostToolUse, PostToolUseFailure; a deny or decline where that is
the block; exit 2 with the reason on stderr for TaskCreated,
TaskCompleted, TeammateIdle, ConfigChange), accept decline cancel
(Elicitation, ElicitationResult), retry (PermissionDenied).`},
	{"check", "cc-hook check [--event EVENT]",
		"validate a hook's reply on stdin: {valid, event, problems}",
		`validates a reply on stdin (what a hook prints) and prints
{valid, event, problems}; exit 1 when Claude Code would reject
or ignore any of it, or when a deny or block has no reason.`},
	{"settings", "cc-hook settings RULES.yaml [--on-error pass|block|ask] [--command CMD]",
		"the settings.json object that registers a rule file",
		`prints the settings.json object that registers the rule file
for the events and matchers it uses, after checking every rule;
the command is this binary's absolute path (Claude Code started
from an IDE may not have it on PATH), stderr names the file.`},
	{"lint", "cc-hook lint RULES.yaml...",
		"fields a rule reads that no payload of its events has",
		`checks rule files: every rule compiles, and every field its
"if" reads is in the payload of an event it names (for tool
events: in the tool_input of a tool its matcher names, from the
tool schemas of Claude Code 2.1.328). One record per field no
payload has, with the nearest real one; exit 1 if any. run
(for the payload's event) and settings check the same.`},
	{"backtest", "cc-hook backtest RULES.yaml [TRANSCRIPT|DIR...] [--all] [--run-unless]",
		"what a rule file would have answered in past sessions",
		`rebuilds the payloads past sessions sent (PreToolUse,
PostToolUse, PostToolUseFailure, UserPromptSubmit, Stop,
SessionStart; subagents included) from transcripts, dirs,
session records or cc-entries lines on stdin, and prints one
record per payload a rule answered (--all: every payload).
unless commands are not run (the rule applies as if they
failed) without --run-unless.`},
	{"test", "cc-hook test RULES.yaml CASES [--run-unless]",
		"run a rule file on test cases, for CI",
		`runs a rule file on test cases (YAML "cases:" or NDJSON: a
payload and the expected decision: deny, block, ..., context or
none; optionally the rule), for CI: one record per case, each
mismatch on stderr with the payload; exit 1 if any fails.`},
}

// help is cc-hook's -h: the subcommands' synopses and descriptions
// (subHelp), then what they share.
func help() string {
	var b strings.Builder
	for i, s := range subHelp {
		if i == 0 {
			b.WriteString("usage: ")
		} else {
			b.WriteString("       ")
		}
		b.WriteString(s.synopsis + "\n")
	}
	b.WriteString("\nClaude Code hooks without code, checked against Claude Code 2.1.328.\n\n")
	for _, s := range subHelp {
		fmt.Fprintf(&b, "  %-8s  %s\n", s.name, strings.ReplaceAll(s.text, "\n", "\n            "))
	}
	b.WriteString(helpTail)
	return b.String()
}

const helpTail = `
Examples:
  # settings.json hook command: guard Bash calls with a rule file
  $ cc-hook run ~/.claude/rules.yaml

  # log every payload
  $ cc-hook parse >> ~/hooks.ndjson

  # which fields do my rules read that no payload has? what would they
  # have done in my last 50 sessions?
  $ cc-hook lint ~/.claude/rules.yaml
  $ cc-sessions --limit 50 | cc-hook backtest ~/.claude/rules.yaml

  # a shell hook's deny
  $ cc-hook reply PreToolUse deny --reason 'use glab-pipeline inspect'

  # does my hook's output do what I think?
  $ ./my-hook < payload.json | cc-hook check --event PreToolUse

Limits (so that no failure ends as an accidental exit 2): a payload over
32 MiB is refused; a rule's "if" condition is stopped after 5 s, over 256 MiB
of memory, or near an address-space limit (ulimit -v); an "unless" command is
killed, with everything it started, after 9 minutes, and only the tail of its
output is kept. Each of these is a failure of the rule file: --on-error
applies. A rule file must be a regular file of at most 4 MiB. The Go runtime
itself needs about 800 MB of address space: under a lower ulimit -v it exits
2 before cc-hook starts.

Exit status: 0 ok (a reply, or no opinion); 1 usage error, bad input or
any failure; 2 only as a deliberate block of an event that reads nothing
else (TaskCreated, TaskCompleted, TeammateIdle, ConfigChange). Unlike the
other cc-* commands, cc-hook never exits 2 for a usage error: Claude Code
reads exit 2 from a hook as a blocking error.

See docs/cc-hook.md for the rule file format and every field.`

type options struct {
	sys          cli.System
	onError      string
	event        string
	reason       string
	context      string
	systemMsg    string
	sessionTitle string
	updatedInput string
	command      string
	runUnless    bool
	all          bool
	// exit2 is set when cc-hook decides to exit 2 on purpose; any other 2
	// from cli (a usage error) becomes 1.
	exit2 bool
}

// MemoryLimit is cc-hook's soft memory limit, which cmd/cc-hook sets
// (debug.SetMemoryLimit): GC settings belong to the main, not to RunWith.
const MemoryLimit = 512 << 20

// Run runs cc-hook with the process environment.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunWith(cli.OS(), args, stdin, stdout, stderr)
}

// RunWith runs cc-hook in the given System. A hook's input is its
// payload; only settings reads the System (this binary's path, the user's
// settings file).
func RunWith(sys cli.System, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := &options{sys: sys}
	c := &cli.Command{
		Sys:         &sys,
		Name:        "cc-hook",
		Short:       "Claude Code hooks without code: rule files, lint, backtest on past sessions, CI tests",
		Synopsis:    "cc-hook run|parse|reply|check|settings|lint|backtest|test ...",
		Help:        help(),
		Subcommands: o.subcommands(),
	}
	code := c.Main(args, stdin, stdout, stderr)
	if code == cli.ExitUsage && !o.exit2 {
		return cli.ExitFail
	}
	return code
}

// subcommands are cc-hook's subcommands, each with its own flags, in the
// order the help names them.
func (o *options) subcommands() []*cli.Command {
	onError := func(f *cli.Flags) {
		f.Enum(&o.onError, "on-error", string(hooks.PolicyPass), "failure `POLICY`", hooks.Policies)
	}
	runUnless := func(f *cli.Flags) {
		f.BoolVar(&o.runUnless, "run-unless", false, "run the rules' unless commands (default: a rule with one applies as if it failed)")
	}
	flags := map[string]func(*cli.Flags){
		"run":  onError,
		"lint": func(f *cli.Flags) { f.RecordFormats(records.IDField) },
		"test": func(f *cli.Flags) {
			runUnless(f)
			f.RecordFormats(records.IDField)
		},
		"reply": func(f *cli.Flags) {
			f.StringVar(&o.reason, "reason", "", "the reason (deny, block, ask, decline) `TEXT`")
			f.StringVar(&o.context, "context", "", "additional context `TEXT` for the model")
			f.StringVar(&o.systemMsg, "system-message", "", "a message `TEXT` shown to the user")
			f.StringVar(&o.sessionTitle, "session-title", "", "a session `TITLE` (UserPromptSubmit, SessionStart)")
			f.StringVar(&o.updatedInput, "updated-input", "", "the tool input to use instead, a JSON `OBJECT`")
		},
		"check": func(f *cli.Flags) {
			f.Enum(&o.event, "event", "", "the `EVENT` the reply answers (default: its hookEventName)", hooks.Events)
		},
		"settings": func(f *cli.Flags) {
			onError(f)
			f.StringVar(&o.command, "command", "", "how settings.json calls cc-hook (`CMD`; default: this binary's absolute path)")
		},
		"backtest": func(f *cli.Flags) {
			runUnless(f)
			f.RecordFormats(records.IDField)
			f.BoolVar(&o.all, "all", false, "also print the payloads no rule answered")
		},
	}
	runs := map[string]func(*cli.Env, []string) error{
		"run": o.runRules, "parse": o.parse, "reply": o.reply, "check": o.check,
		"settings": o.settings, "lint": o.lint, "backtest": o.backtest, "test": o.test,
	}
	// noJQ: the subcommands that print no records.
	noJQ := map[string]string{"run": "run prints a reply for Claude Code, not records: --jq does not apply"}
	subs := make([]*cli.Command, len(subHelp))
	for i, s := range subHelp {
		subs[i] = &cli.Command{
			Name: s.name, Short: s.short, Synopsis: s.synopsis,
			Help:     "usage: " + s.synopsis + "\n\n" + strings.ToUpper(s.text[:1]) + s.text[1:],
			SetFlags: flags[s.name], Run: runs[s.name], NoJQ: noJQ[s.name],
		}
	}
	// reply's EVENT
	subs[2].Complete = func(_ context.Context, flag string, args []string) []string {
		if flag == "" && len(args) == 0 {
			return hooks.Events
		}
		return nil
	}
	return subs
}

// exit ends the command with code; only a reply's exit 2 gets through as 2.
func (o *options) exit(code int) error {
	if code == 0 {
		return nil
	}
	if code == 2 {
		o.exit2 = true
	}
	return &cli.ExitError{Code: code}
}

// runRules is the hot path: one payload, one rule file, one answer.
func (o *options) runRules(env *cli.Env, args []string) error {
	policy := hooks.Policy(o.onError) // an Enum of hooks.Policies
	if len(args) != 1 {
		return cli.Usagef("run needs one rule file")
	}
	runner := hooks.Runner{Stdout: env.Stdout, Stderr: env.Stderr, OnError: policy, Name: "cc-hook", Mask: cli.Mask}
	var payload []byte
	var err error
	if env.HasInput() {
		if payload, err = hooks.ReadPayload(env.Stdin); err != nil {
			return o.exit(runner.Fail("", err))
		}
	}
	if len(strings.TrimSpace(string(payload))) == 0 {
		return o.exit(runner.Fail("", hooks.ErrNoPayload))
	}
	ev, err := hooks.Parse(payload)
	if err != nil {
		return o.exit(runner.Fail("", err))
	}
	f, err := rules.LoadFile(args[0])
	if err != nil {
		return o.exit(runner.Fail(ev.EventName(), err))
	}
	f.Spend = func() (usage.Spend, error) {
		c := ev.Common()
		return warm.Spend(o.sys, warm.CacheDir(o.sys), c.TranscriptPath, c.SessionID)
	}
	// A rule that reads a field its payloads never have would never fire:
	// that is a broken rule file, not a quiet "no opinion".
	if err := f.LintError(ev.EventName()); err != nil {
		return o.exit(runner.Fail(ev.EventName(), fmt.Errorf("%s: %w", args[0], err)))
	}
	m, err := f.Eval(env.Ctx, ev, payload)
	if err != nil {
		return o.exit(runner.Fail(ev.EventName(), fmt.Errorf("%s: %w", args[0], err)))
	}
	if m == nil {
		return nil
	}
	code, err := m.Reply.Write(env.Stdout, env.Stderr)
	if err != nil {
		return o.exit(runner.Fail(ev.EventName(), fmt.Errorf("writing the reply: %w", err)))
	}
	return o.exit(code)
}

func (o *options) parse(env *cli.Env, args []string) error {
	if len(args) > 0 {
		return cli.Usagef("parse reads payloads on stdin, not %q", args[0])
	}
	bad := 0
	st, err := env.EachInput(func(line []byte, lineno int) error {
		ev, err := hooks.Parse(line)
		if err != nil {
			bad++
			env.SkipInput(lineno, "%v", err)
			return nil
		}
		return env.Out.WriteJSON(hooks.Record(ev))
	})
	if err != nil {
		return fmt.Errorf("reading payloads: %w", err)
	}
	if skipped := st.Skipped() + bad; skipped > 0 {
		return &cli.ExitError{Code: cli.ExitFail, Err: fmt.Errorf("parse: %d of %d lines skipped", skipped, st.Lines-st.Blank)}
	}
	return nil
}

func (o *options) reply(env *cli.Env, args []string) error {
	if len(args) < 1 || len(args) > 2 {
		return cli.Usagef("reply needs an EVENT and at most one DECISION")
	}
	event := args[0]
	if !hooks.IsEvent(event) {
		return cli.Usagef("unknown event %q%s", event, cli.DidYouMean(event, hooks.Events))
	}
	d := hooks.Decision{Reason: o.reason, AdditionalContext: o.context, SystemMessage: o.systemMsg, SessionTitle: o.sessionTitle}
	if len(args) == 2 {
		d.Kind = args[1]
	}
	if o.updatedInput != "" {
		// Numbers as written: a tool input's 1.000000000000000000001 or a
		// 20-digit id must reach the tool unrounded.
		dec := json.NewDecoder(strings.NewReader(o.updatedInput))
		dec.UseNumber()
		err := dec.Decode(&d.UpdatedInput)
		if _, end := dec.Token(); err != nil || end != io.EOF || d.UpdatedInput == nil {
			return cli.Usagef("--updated-input must be a JSON object")
		}
	}
	if d.Kind == "" && d.AdditionalContext == "" && d.SystemMessage == "" && d.SessionTitle == "" {
		return cli.Usagef("reply needs a DECISION, --context, --system-message or --session-title")
	}
	r, err := hooks.Decide(event, d)
	if err != nil {
		return err
	}
	if r.JSON() == nil {
		// An exit-2 block: the reason on stderr, exit 2, on purpose.
		code, err := r.Write(env.Stdout, env.Stderr)
		if err != nil {
			return err
		}
		return o.exit(code)
	}
	return env.Out.WriteJSON(r.JSON())
}

// checkResult is the record `cc-hook check` prints.
type checkResult struct {
	Valid    bool            `json:"valid"`
	Event    *string         `json:"event"`
	Problems []hooks.Problem `json:"problems"`
}

func (o *options) check(env *cli.Env, args []string) error {
	if len(args) > 0 {
		return cli.Usagef("check reads a reply on stdin, not %q", args[0])
	}
	var data []byte
	if env.HasInput() {
		var err error
		if data, err = io.ReadAll(env.Stdin); err != nil {
			return fmt.Errorf("reading the reply: %w", err)
		}
	}
	ps := hooks.Check(o.event, data)
	res := checkResult{Valid: len(ps) == 0, Problems: ps}
	if res.Problems == nil {
		res.Problems = []hooks.Problem{}
	}
	if ev := replyEvent(o.event, data); ev != "" {
		res.Event = &ev
	}
	if err := env.Out.Write(res); err != nil {
		return err
	}
	if len(ps) > 0 {
		msgs := make([]string, len(ps))
		for i, p := range ps {
			msgs[i] = p.String()
		}
		return &cli.ExitError{Code: cli.ExitFail, Err: fmt.Errorf("check: %s", strings.Join(msgs, "; "))}
	}
	return nil
}

// replyEvent is the event a reply is checked for: --event, else the
// hookEventName it names.
func replyEvent(event string, data []byte) string {
	if event != "" {
		return event
	}
	var r struct {
		HSO struct {
			Name string `json:"hookEventName"`
		} `json:"hookSpecificOutput"`
	}
	if json.Unmarshal(data, &r) == nil {
		return r.HSO.Name
	}
	return ""
}

func (o *options) settings(env *cli.Env, args []string) error {
	policy := hooks.Policy(o.onError) // an Enum of hooks.Policies
	if len(args) != 1 {
		return cli.Usagef("settings needs one rule file")
	}
	f, err := rules.LoadFile(args[0])
	if err != nil {
		return err
	}
	if err := f.LintError(""); err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	abs, err := filepath.Abs(args[0])
	if err != nil {
		return fmt.Errorf("resolving %s: %w", args[0], err)
	}
	cmd := o.command
	if cmd == "" {
		if cmd, err = o.sys.SelfCommand(); err != nil {
			return err
		}
	}
	cmd += " run"
	if policy != hooks.PolicyPass {
		cmd += " --on-error " + string(policy)
	}
	cmd += " " + cli.ShellQuote(abs)
	return cli.PrintSettings(env, o.sys, f.Settings(cmd, policy == hooks.PolicyBlock))
}
