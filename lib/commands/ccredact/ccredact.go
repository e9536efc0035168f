// Package ccredact is the cc-redact command: records in, the same records
// out with secrets replaced by [REDACTED:<kind>]; or, with --scan, where
// the secrets are.
package ccredact

import (
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/records"
	"github.com/ccpipe/ccpipe/lib/secrets"
)

const help = `usage: cc-redact [--scan] [--rules FILE] [--profile NAME] [TRANSCRIPT... | -]
       cc-redact --hook [--rules FILE]
       cc-redact --print-settings [--rules FILE]

Replaces secrets with [REDACTED:<kind>] in every string value of every
record: prompts, text, tool inputs and results, toolUseResult,
attachments. Records come out in the same order with the same bytes,
except for the strings that held a secret, which are re-encoded; a
record without a secret is byte for byte the same. Object keys are names
and are not changed.

Input: records on stdin (cc-entries lines or any NDJSON), transcript files
given as arguments ("-" for stdin records among them), or session records
on stdin (any record with a transcript_path and no type, uuid, cc_source
or hook_event_name, such as cc-sessions output), which stand for their
main transcript's records. For subagents, use cc-entries --subagents
first.

--scan prints where the secrets are instead, one finding per line, and
never the secret itself:
  session_id  the session (null when a stdin record does not say)
  path        the file (null for a stdin record without cc_source)
  line        the line in that file (for a stdin record, its cc_source
              line, else its line on stdin)
  field       the jq path of the string in the record, such as
              .message.content[0].input.command (null in a text file)
  kind        the rule that matched
With --scan a session (a session record, or a transcript path) means all
its files: the main transcript, subagents/*.jsonl and tool-results/*.
Without any input --scan reads every session of every profile (see
cc-profiles; --profile picks some).

Rules (kinds): anthropic-api-key, openai-api-key, aws-access-key-id,
aws-secret-access-key, github-token, gitlab-token, slack-token,
slack-webhook-url, stripe-key, google-api-key, npm-token, jwt,
private-key, url-credentials, bearer-token, password-assignment. The
exact shapes are in lib/secrets (rules.go), each with its tests. --rules
adds site-specific ones:
` + secrets.RuleFileFormat + `

--hook is a PostToolUse command hook: Claude Code sends it each tool's
output before the model sees it, and it replies with the output masked
(updatedToolOutput, the whole output object, so that it keeps the tool's
shape; for mcp__ tools updatedMCPToolOutput too) and a line for the user
naming the kinds. An output without a secret gets no reply at all (exit
0, nothing printed): a clean call costs one process start. The model's
next request and the transcript then hold [REDACTED:<kind>]. It cannot
cover: the command line itself (a key typed into a Bash command is in the
assistant's message before any hook runs), files the tool wrote or read
(Read of a .env is an output and is masked; the .env on disk is not),
user prompts, the output of a failed call (Bash exit status not 0 fires
PostToolUseFailure, which cannot replace it: --hook then warns the user),
and a large output Claude Code saves whole under tool-results/ before the
hooks run (the model gets the masked preview; the file keeps the secret,
and the warning names it). For those: cc-hook rules on PreToolUse (deny a
command that would print a key, such as cat .env) and UserPromptSubmit,
and cc-redact --scan to find what got through. Failures never block the
tool: a payload that cannot be read or parsed is one stderr line and exit
0 (the output passes unchanged); a usage error exits 1, never 2.
--print-settings prints the settings.json object that installs it, with
this binary's absolute path; stderr names the file it belongs in.

Lines that are not JSON records (a JSON object) are reported on stderr
and left out of the output; so are lines over 1 GiB. A file argument that
is not a transcript (a binary, text: judged from its first 64 KiB) is one
error naming it, and nothing of it is written. --scan parses only the lines that hold a
keyword of some rule (the rest cannot hold a secret): a broken one is
reported and its raw text scanned.

Examples:
  # share a session: its active branch, subagents, secrets masked
  $ cc-sessions --find my-project | cc-entries --branch --subagents |
      cc-redact | cc-render html > session.html

  # every secret in every session on this machine
  $ cc-redact --scan

  # which kinds, how often
  $ cc-redact --scan --jq .kind -r | sort | uniq -c

  # mask keys in tool output before the model sees them: paste into settings.json
  $ cc-redact --print-settings

  # one transcript, with the company's own token shape
  $ cc-redact --rules ~/.config/ccpipe/secrets.rules ~/.claude/projects/-x/ID.jsonl > clean.jsonl

Exit status: 0 ok (with --scan: nothing found; --hook: always, unless a
usage error), 1 with --scan a secret was found, or a file could not be
read or a line was not JSON (stderr says which), 2 usage error (1 with
--hook).`

type options struct {
	sys      cli.System
	scan     bool
	hook     bool
	settings bool
	rules    []string
	profiles []string
	workers  int
}

// Run runs cc-redact with the process environment.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunWith(cli.OS(), args, stdin, stdout, stderr)
}

// RunWith runs cc-redact in the given System.
func RunWith(sys cli.System, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := &options{sys: sys}
	c := &cli.Command{
		Sys:      &sys,
		Name:     "cc-redact",
		Short:    "secrets masked in records, found with --scan, kept from the model with --hook",
		Synopsis: "cc-redact [--scan | --hook | --print-settings] [--rules FILE] [--profile NAME] [TRANSCRIPT... | -]",
		Help:     help,
		SetFlags: func(f *cli.Flags) {
			f.BoolVar(&o.scan, "scan", false, "print where secrets are (session_id, path, line, field, kind) instead of redacting; exit 1 if any")
			f.BoolVar(&o.hook, "hook", false, "answer a PostToolUse hook payload on stdin: the tool's output with its secrets masked, or nothing")
			f.BoolVar(&o.settings, "print-settings", false, "print the settings.json object that installs --hook (this binary's absolute path)")
			f.StringsVar(&o.rules, "rules", "add the rules in `FILE` (format in the help above; repeatable)")
			f.StringsVar(&o.profiles, "profile", "with --scan and no input, only the sessions of the profile named `NAME` (repeatable)")
			f.IntVar(&o.workers, "workers", runtime.NumCPU(), "with --scan, read `N` files at once")
			f.AtLeast("workers", 1)
			f.Exclusive("scan", "hook", "print-settings").Says("--scan, --hook and --print-settings are ways to run: give one")
			f.Requires("profile", "scan").Says(profileScan)
			f.RecordFormats(records.IDField)
		},
		Run: o.run,
	}
	return hookExit(args, c.Main(args, stdin, stdout, stderr))
}

const profileScan = "--profile picks the sessions --scan reads when no input is given"

func (o *options) run(env *cli.Env, args []string) error {
	if (o.hook || o.settings) && (len(args) > 0 || len(o.profiles) > 0) {
		return cli.Usagef("--hook and --print-settings take no transcripts or --profile")
	}
	if o.hook && env.Out.Filtering() {
		return cli.Usagef("--hook prints a reply for Claude Code, not records: --jq does not apply")
	}
	if len(o.profiles) > 0 && (!o.scan || len(args) > 0) {
		return cli.Usagef("%s", profileScan)
	}
	stdin := 0
	for _, a := range args {
		if a == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return cli.Usagef(`"-" (stdin) can be given once`)
	}
	set, err := o.ruleSet()
	if err != nil {
		return err
	}
	if o.scan {
		env.Out.SetLayout(scanLayout)
	} else {
		env.Out.Stream() // masked records are for the next command
	}
	r := &runner{o: o, env: env, set: set, seen: map[string]bool{}}
	switch {
	case o.hook:
		return r.hook()
	case o.settings:
		return o.printSettings(env)
	}
	if o.scan {
		err = r.scan(args)
	} else {
		err = r.redact(args)
	}
	if env.Ctx.Err() != nil && !o.scan {
		// The output stops mid-stream: say so, whatever the error was.
		return errors.New("interrupted")
	}
	if err != nil {
		return err
	}
	switch {
	case o.scan && r.found > 0:
		return &cli.ExitError{Code: cli.ExitFail}
	case r.failed:
		return &cli.ExitError{Code: cli.ExitFail}
	}
	return nil
}

// ruleSet is the default rules plus those of --rules.
func (o *options) ruleSet() (*secrets.Set, error) {
	set, err := secrets.DefaultWith(o.rules...)
	if err != nil {
		return nil, cli.Usagef("--rules: %v", err)
	}
	return set, nil
}

// runner holds one invocation's state.
type runner struct {
	o      *options
	env    *cli.Env
	set    *secrets.Set
	seen   map[string]bool // transcripts already read
	found  int             // findings printed (--scan)
	failed bool            // something was not read or left out
}

// fail reports a problem that leaves something out; the run goes on and
// exits 1.
func (r *runner) fail(format string, a ...any) {
	r.failed = true
	r.env.Warnf("%s", fmt.Sprintf(format, a...))
}
