// Package ccsend is the cc-send command: put a message in front of the
// model of a running Claude Code session, over its messaging socket, the
// way another session does.
package ccsend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/internal/load"
	"github.com/ccpipe/ccpipe/lib/peer"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/records"
	"github.com/ccpipe/ccpipe/lib/sessions"
)

const help = `usage: cc-send TARGET [flags] [-- message words]
       cc-send --current [flags] [-- message words]
       cc-sessions ... | cc-send [flags] -- message words

Sends a message to a running Claude Code session over its messaging socket.
The session's model gets it as a new turn (or inside the running turn),
after the line "Another Claude session sent a message:".

TARGET is found like cc-sessions --find: pid:<n>, <profile>/<name>, a
session id, a session name, a unique prefix of a session id, or a title.
A session found that has ended is named and reported as not running
(exit 1). --current
is the session this command runs inside. Without either, stdin holds
session records (cc-sessions output, or any record with socket_path or
active.socket_path) and each one gets the message.

The message is the words after --, else all of stdin (one message; a
trailing newline is dropped). An empty stdin sends nothing. With --lines
every stdin line is a message, paced below the receiver's limits (30 at
once, then one per 2 s, no identical text within 30 s): lines that queue up
are joined into one message, so the receiver drops none.

The receiver never answers on its socket. A message it drops or holds is
reported only to a reply socket: --wait listens on one and reports the
receipt; --wait-idle also asks to be told when the receiver's turn ends and
returns then. The reply socket is ccpipe-<--from label>.sock in the
directory of the target's socket (the only place the receiver replies
to), made once the target accepted the connection and only when that
directory is this user's private (0700) one; the label is also the
identity the receiver rate-limits by, so give each independent sender its
own.

Output: one NDJSON record per delivered message: session_id, address,
socket_path, msg_id, bytes, auth, status (sent; with --wait: accepted,
held, delivered, dropped, denied, expired or refused), and when they apply
lines, rename, reason, drop_reason, idle_state, finished_at. See
docs/cc-send.md.

Examples:
  # tell a session that CI failed
  $ echo "Pipeline #1234 failed in job test" | cc-send personal/my-project

  # stream failures, paced and joined
  $ tail -f ci.log | grep --line-buffered FAIL | cc-send my-project --lines --name CI

  # send, wait until the turn it started is over, then read the answer
  $ cc-send pid:4242 --wait-idle -- "run the tests" &&
      cc-sessions --find pid:4242 | cc-extract texts --jq .text -r | tail -1

  # every running session of a profile
  $ cc-sessions --active --profile work | cc-send -- "deploy freeze starts now"

Exit status: 0 sent; 1 a target failed (each failure one line on stderr),
a message was dropped, denied, expired or refused, or --wait-idle timed
out; 2 usage error.`

// DefaultLabel is the --from label of cc-send: the rate-limit identity
// every cc-send process shares unless told otherwise.
const DefaultLabel = "cc-send"

// DefaultWaitTimeout bounds --wait when --wait-timeout is not given. Drop
// receipts after the first are coalesced and sent about 5 s later.
const DefaultWaitTimeout = 10 * time.Second

// Run runs cc-send with the process environment.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunWith(cli.OS(), args, stdin, stdout, stderr)
}

type options struct {
	sys cli.System

	current     bool
	name        string
	label       string
	mode        string
	priority    string
	rename      string
	timeout     time.Duration
	waitTimeout time.Duration
	lines       bool
	stamp       bool
	wait        bool
	waitIdle    bool

	words    []string // after --
	hasWords bool
}

// RunWith runs cc-send in the given System.
func RunWith(sys cli.System, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := &options{sys: sys}
	// The words after the first -- are the message, never a TARGET: take
	// them out before flag parsing merges them into the positionals.
	for i, a := range args {
		if a == "--" {
			o.words, o.hasWords = args[i+1:], true
			args = args[:i:i]
			break
		}
	}
	c := &cli.Command{
		Sys:      &sys,
		Name:     "cc-send",
		Short:    "a message into a running Claude Code session over its socket; rename a session",
		Synopsis: "cc-send TARGET|--current [--name NAME] [--from LABEL] [--lines] [--wait] [--wait-idle] [--rename NAME] [-- message]",
		Help:     help,
		SetFlags: func(f *cli.Flags) {
			f.BoolVar(&o.current, "current", false, "send to the session this command runs inside")
			f.StringVar(&o.name, "name", "", "display `NAME` shown as the sender (from-name in the envelope)")
			f.StringVar(&o.label, "from", DefaultLabel, "sender `LABEL`: the identity the receiver rate-limits by, and the reply socket's name")
			f.Enum(&o.mode, "mode", "", "assert the sender's permission `MODE`; a mode other than the receiver's gets the message held", []string{peer.ModeBypass, peer.ModePrompting})
			f.Enum(&o.priority, "priority", peer.PriorityNext, "`WHEN` the receiver takes the message", []string{peer.PriorityNow, peer.PriorityNext, peer.PriorityLater})
			f.StringVar(&o.rename, "rename", "", "ask the session to rename itself to `NAME` (no message)")
			f.DurationVar(&o.timeout, "timeout", peer.DefaultTimeout, "bound `D` on each delivery: connect, write, and the receiver's close")
			f.DurationVar(&o.waitTimeout, "wait-timeout", 0, "bound `D` on --wait (default 10s) and --wait-idle (default none)")
			f.BoolVar(&o.lines, "lines", false, "each stdin line is a message, paced and joined to stay within the receiver's limits")
			f.BoolVar(&o.stamp, "stamp", false, "with --lines, prefix each line with [#<seq> <time>] so that repeats are not dropped")
			f.BoolVar(&o.wait, "wait", false, "listen for the receipt of each message (held, delivered, dropped, denied, …)")
			f.BoolVar(&o.waitIdle, "wait-idle", false, "return when the receiver's turn has ended (notify_when_idle)")
			f.RecordFormats(records.IDField)
			f.Requires("wait-timeout", "wait", "wait-idle")
			f.Positive("timeout")
			f.AtLeast("wait-timeout", 0)
			f.Requires("stamp", "lines")
			const linesWait = "--lines cannot be combined with --wait or --wait-idle"
			f.Exclusive("lines", "wait").Says(linesWait)
			f.Exclusive("lines", "wait-idle").Says(linesWait)
		},
		Run: o.run,
		Complete: func(ctx context.Context, flag string, args []string) []string {
			if flag == "" && len(args) == 0 {
				return sessions.RunningNames(ctx, load.Profiles(o.sys), o.sys.Getenv)
			}
			return nil
		},
	}
	return c.Main(args, stdin, stdout, stderr)
}

func (o *options) check(env *cli.Env, args []string) error {
	switch {
	case len(args) > 1:
		return cli.Usagef("unexpected argument %q (one TARGET; put the message after --)", args[1])
	case len(args) == 1 && strings.TrimSpace(args[0]) == "":
		return cli.Usagef("empty TARGET (give pid:<n>, <profile>/<name>, a session id, name or id prefix; or --current)")
	case len(args) == 1 && o.current:
		return cli.Usagef("TARGET and --current exclude each other")
	case env.Flags.Visited("rename") && strings.TrimSpace(o.rename) == "":
		return cli.Usagef("--rename needs a NAME")
	case o.rename != "" && (o.hasWords || o.lines || o.wait || o.waitIdle || o.name != ""):
		return cli.Usagef("--rename sends no message: it excludes a message, --lines, --name, --wait and --wait-idle")
	case o.lines && o.hasWords:
		return cli.Usagef("--lines reads the messages from stdin, not after --")
	case o.lines && len(args) == 0 && !o.current:
		return cli.Usagef("--lines needs TARGET or --current (stdin holds the lines)")
	case o.label == "":
		return cli.Usagef("--from needs a LABEL")
	}
	return nil
}

func (o *options) run(env *cli.Env, args []string) error {
	if err := o.check(env, args); err != nil {
		return err
	}
	if streams := o.lines || (len(args) == 0 && !o.current); streams {
		// The results of a stream are read as they happen.
		if err := env.Out.Endless("a stream of messages (--lines, records on stdin)"); err != nil {
			return err
		}
	}
	if len(args) == 0 && !o.current {
		return o.runRecords(env)
	}
	if o.rename == "" && !o.hasWords && !env.HasInput() {
		return cli.Usagef("no message: give it after -- or on stdin")
	}
	profs, err := load.DiscoverProfiles(env, o.sys)
	if err != nil {
		return err
	}
	t, err := o.resolve(env, args, profs)
	if err != nil {
		return err
	}
	if o.lines {
		return o.sendLines(env, t)
	}
	text := strings.Join(o.words, " ")
	if !o.hasWords && o.rename == "" {
		var ok bool
		if text, ok, err = readMessage(env.Stdin); err != nil || !ok {
			return err
		}
	}
	return o.sendAll(env, []*target{t}, text)
}

// runRecords sends the message to each session record on stdin.
func (o *options) runRecords(env *cli.Env) error {
	if !env.HasInput() {
		return cli.Usagef("no target: give TARGET, --current, or session records on stdin")
	}
	if !o.hasWords && o.rename == "" {
		return cli.Usagef("stdin holds session records: give the message after --, or TARGET or --current to send stdin")
	}
	var profs []profiles.Profile
	discovered := false
	var targets []*target
	failed := 0
	_, err := env.EachInput(func(line []byte, lineno int) error {
		if !discovered {
			// Only needed to find key files of records that do not say
			// where their registry is.
			profs = load.Profiles(o.sys)
			discovered = true
		}
		t, err := fromRecord(line, profs)
		if err != nil {
			env.Warnf("<stdin>:%d: %v", lineno, err)
			failed++
			return nil
		}
		targets = append(targets, t)
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading stdin: %w", err)
	}
	err = o.sendAll(env, targets, strings.Join(o.words, " "))
	if err == nil && failed > 0 {
		err = &cli.ExitError{Code: cli.ExitFail}
	}
	return err
}

// maxStdinMessage bounds what is read from stdin for one message: any
// more is certainly over the receiver's line limit.
const maxStdinMessage = 4 * peer.MaxLine

// readMessage reads all of stdin as one message without its trailing
// newlines; ok is false for an empty input (nothing to send).
func readMessage(r io.Reader) (string, bool, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxStdinMessage+1))
	if err != nil {
		return "", false, fmt.Errorf("reading stdin: %w", err)
	}
	if len(b) > maxStdinMessage {
		// Not read to the end: say what is known, not a made-up size.
		return "", false, fmt.Errorf("message on stdin: over %d bytes, and the receiver drops a message over %d characters (%w; --lines sends it line by line)",
			maxStdinMessage, peer.MaxLine-peer.AuthAllowance-1, peer.ErrTooLarge)
	}
	s := strings.TrimRight(string(b), "\r\n")
	if strings.TrimSpace(s) == "" {
		return "", false, nil
	}
	return s, true, nil
}

// describeErr turns a lookup failure into its line; an ambiguous query
// lists the candidates.
func describeErr(env *cli.Env, query string, err error) error {
	var amb *sessions.AmbiguousError
	var nf *sessions.NotFoundError
	switch {
	case errors.As(err, &amb):
		env.Warnf("%v; candidates:", err)
		for _, c := range amb.Candidates {
			fmt.Fprintf(env.Stderr, "  %s\n", cli.Mask(c.Describe()))
		}
		return &cli.ExitError{Code: cli.ExitFail}
	case errors.As(err, &nf) && query == "":
		return errors.New("--current: not inside a Claude Code session: no CLAUDE_PID or CLAUDE_CODE_SESSION_ID of a known session, and no registered parent process")
	case errors.As(err, &nf):
		return fmt.Errorf("%s: no running or past session matches", query)
	}
	return err
}
