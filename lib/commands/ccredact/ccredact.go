// Package ccredact is the cc-redact command: records in, the same records
// out with secrets replaced by [REDACTED:<kind>]; or, with --scan, where
// the secrets are.
package ccredact

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/secrets"
)

const help = `usage: cc-redact [--scan] [--rules FILE] [--profile NAME] [TRANSCRIPT... | -]

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

Lines that are not JSON are reported on stderr and left out of the
output; so are lines over 1 GiB. --scan parses only the lines that hold a
keyword of some rule (the rest cannot hold a secret): a broken one is
reported and its raw text scanned.

Examples:
  # share a session: its active branch, subagents, secrets masked
  $ cc-sessions --find my-project | cc-entries --branch --subagents | cc-redact | cc-render html > session.html

  # every secret in every session on this machine
  $ cc-redact --scan

  # which kinds, how often
  $ cc-redact --scan --jq .kind -r | sort | uniq -c

  # one transcript, with the company's own token shape
  $ cc-redact --rules ~/.config/ccpipe/secrets.rules ~/.claude/projects/-x/ID.jsonl > clean.jsonl

Exit status: 0 ok (with --scan: nothing found), 1 with --scan a secret
was found, or a file could not be read or a line was not JSON (stderr
says which), 2 usage error.`

type options struct {
	sys      cli.System
	scan     bool
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
		Name:     "cc-redact",
		Short:    "secrets in records masked as [REDACTED:<kind>], or found with --scan",
		Synopsis: "cc-redact [--scan] [--rules FILE] [--profile NAME] [TRANSCRIPT... | -]",
		Help:     help,
		SetFlags: func(f *cli.Flags) {
			f.BoolVar(&o.scan, "scan", false, "print where secrets are (session_id, path, line, field, kind) instead of redacting; exit 1 if any")
			f.Func("rules", "add the rules in `FILE` (format in the help above; repeatable)", func(s string) error {
				o.rules = append(o.rules, s)
				return nil
			})
			f.Func("profile", "with --scan and no input, only the sessions of the profile named `NAME` (repeatable)", func(s string) error {
				o.profiles = append(o.profiles, s)
				return nil
			})
			f.IntVar(&o.workers, "workers", runtime.NumCPU(), "with --scan, read `N` files at once")
			f.Requires("profile", "scan").Says(profileScan)
		},
		Run: o.run,
	}
	return c.Main(args, stdin, stdout, stderr)
}

const profileScan = "--profile picks the sessions --scan reads when no input is given"

func (o *options) run(env *cli.Env, args []string) error {
	if o.workers < 1 {
		return cli.Usagef("--workers must be 1 or more, not %d", o.workers)
	}
	if len(o.profiles) > 0 && len(args) > 0 {
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
	r := &runner{o: o, env: env, set: set, seen: map[string]bool{}}
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
	if len(o.rules) == 0 {
		return secrets.Default, nil
	}
	var extra []*secrets.Rule
	for _, name := range o.rules {
		f, err := os.Open(name)
		if err != nil {
			return nil, cli.Usagef("--rules: %v", err)
		}
		rules, err := secrets.ParseRules(f, name)
		f.Close()
		if err != nil {
			return nil, cli.Usagef("--rules: %v", err)
		}
		extra = append(extra, rules...)
	}
	set, err := secrets.Default.With(extra...)
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
