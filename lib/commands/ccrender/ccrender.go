// Package ccrender is the cc-render command: a Claude Code session as a
// Markdown file or one self-contained HTML page.
package ccrender

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ccpipe/ccpipe/lib/atomicfile"
	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/internal/load"
	"github.com/ccpipe/ccpipe/lib/render"
	"github.com/ccpipe/ccpipe/lib/secrets"
	"github.com/ccpipe/ccpipe/lib/sessions"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

const help = `usage: cc-render md|html [flags] [TRANSCRIPT...]

Renders Claude Code sessions for people to read: GitHub-flavoured
Markdown (md) or one self-contained HTML page (html). Input is transcript
files named as arguments, or on stdin session records (any record with a
transcript_path, such as cc-sessions output) or transcript entries
(cc-entries output; with cc-entries --subagents the subagents' entries are
nested under the Agent call that started them); with neither (a terminal
or /dev/null on stdin), every session cc-sessions lists, in its order.
Output goes to stdout (all sessions in one document), to --out FILE, or
with --out-dir to one file per session named <session id>.md or .html.

A page has: the session's newest title (the title cc-sessions gives it,
so a title set late in the session heads the page), session id,
directory, branch, start time and Claude Code version; every prompt with
its origin (human,
peer, task-notification, coordinator; queued when typed while Claude
worked), numbered, with a table of contents; assistant text as Markdown;
thinking folded; every tool call with its input and result (Bash and
PowerShell: the command, the exit code, stdout and stderr; Edit and
MultiEdit: a unified diff; Write: the file written; Read, Grep, Glob:
folded); failed calls, refusals (by a hook, a rule or the user) and
interruptions marked; API errors and hook failures marked (a hook block
once, however many records Claude Code wrote for it: a Stop hook's
feedback prompt shows as the block's mark); images from the
transcript's base64 data; each subagent's transcript folded inside its
Agent call; compactions as a divider with their summary; the tokens of
each turn (API calls, input, output, cache read, cache write) and of the
session, with their cost priced as cc-extract usage --cost prices each
API response (the built-in price table): "(assumed: MODEL priced as the
default model)" names unknown models, "+ N unpriced" counts calls whose
usage could not be priced, "cost unknown" when none could. The calls
counted are cc-extract usage's (one billing rule): a fork's page shows the
conversation it copied from the original, but the original's calls are
billed on the original's page, not again on the fork's.

Secrets are masked: every string of every record goes through cc-redact's
rules (lib/secrets) before it is laid out, so an API key, token or
password a prompt, a command or an output held shows as
[REDACTED:<kind>]. --no-redact shows them as they are; --rules adds
site-specific rules (cc-redact's format).

A tool output longer than --max-output-lines (default 200) shows its
first lines; the rest is in a closed details block ("N more lines"), in
Markdown as in HTML. 0 shows every output whole.

The HTML page makes no request of any kind (a Content-Security-Policy
forbids everything but inline CSS and data: images) and runs no script:
every string from the transcript is escaped, links are shown as text.
It follows the reader's light or dark setting and fits a phone; long
outputs are folded behind "show all". The Markdown puts every output in a
fence longer than any run of backticks inside it, escapes '<' in prose
(outside code) and closes any fence a text leaves open, so a transcript
cannot change the page around it.

Large sessions render in bounded memory (about 12 MB whatever the size of
a line, from a path or a session record; entries piped in on stdin are
read a whole line at a time, so memory grows with the longest line: 86 MB
for a 50 MB line): one text over 128 KB (a huge tool output) is cut as it
is read, and the page says how much was left out (a warning on stderr names the
line: in its transcript, or <stdin>:N for entries piped in without
cc_source); a line still over 8 MB once its texts are cut (not JSON at all) is
read past and skipped, named on stderr; an image over 128 KB goes through
a temporary file into the page whole. Only PNG, JPEG, GIF and WebP images
from the transcript's own base64 data are shown.

Each session's subagent transcripts (read from <session>/subagents/ next
to the transcript given as a path or a session record) are rendered inside
their Agent calls, and their API calls count in the page's tokens and cost,
as in cc-extract usage and Claude Code's own cost (--subagents, the
default). --no-subagents leaves them out of the page and of its cost.

--follow keeps rendering one session as its transcript grows: the output
(--out FILE, --out-dir, or stdout when it is redirected to a file) is
rewritten through a temporary file and a rename, so a reader never sees a
half-written page. It ends when the session ends (its registry record is
gone), or on a signal.

Examples:
  # the newest session as a page
  $ cc-sessions --limit 1 | cc-render html > session.html

  # one transcript as Markdown, subagents included
  $ cc-render md ~/.claude/projects/-home-me-app/SESSION.jsonl > session.md

  # the active branch only, subagents nested, one page per session
  $ cc-sessions --find app | cc-entries --branch --subagents | cc-render html --out-dir pages

  # a page that follows a running session
  $ cc-render html --follow --out live.html SESSION.jsonl

A file that is not a transcript (a binary, text, another tool's NDJSON:
judged from its first 64 KiB) or cannot be opened is one error naming it
and gets no page; when no input is a transcript nothing is written (no
--out file). Malformed lines of a transcript are skipped: ten are named,
the rest counted.

Exit status: 0 ok, 1 a transcript could not be read, an input was not a
transcript, stdin held no entry or session record (only bad lines), or
another failure (what could be read is still rendered), 2 usage error.`

type options struct {
	noRedact    bool
	rules       []string
	maxLines    int
	format      string
	out         string
	outDir      string
	subagents   bool
	noSubagents bool
	follow      bool
	sys         cli.System
	poll        time.Duration
}

// Run runs cc-render with the process environment.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunWith(cli.OS(), args, stdin, stdout, stderr)
}

// RunWith runs cc-render in the given System.
func RunWith(sys cli.System, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := &options{sys: sys}
	c := &cli.Command{
		Sys:      &sys,
		NoJQ:     "--jq: cc-render writes pages, not records (filter its input instead)",
		Name:     "cc-render",
		Short:    "a session as GitHub Markdown or one self-contained HTML page, secrets masked",
		Synopsis: "cc-render md|html [flags] [TRANSCRIPT...]",
		Help:     help,
		SetFlags: func(f *cli.Flags) {
			f.StringVarP(&o.out, "out", "o", "", "write to `FILE` (replaced atomically; a device or FIFO is written to directly)")
			f.StringVar(&o.outDir, "out-dir", "", "write one file per session into `DIR`")
			f.BoolVar(&o.subagents, "subagents", true, "render subagent transcripts inside their Agent calls, their cost counted (the default)")
			f.BoolVar(&o.noSubagents, "no-subagents", false, "leave the subagent transcripts out of the page and its cost")
			f.Exclusive("subagents", "no-subagents")
			f.BoolVar(&o.follow, "follow", false, "rewrite the output as the session grows, until it ends")
			f.DurationVar(&o.poll, "poll", 500*time.Millisecond, "with --follow, how often to look for changes")
			f.Positive("poll")
			f.BoolVar(&o.noRedact, "no-redact", false, "show secrets as they are (default: masked as [REDACTED:<kind>])")
			f.StringsVar(&o.rules, "rules", "mask the secrets of the rules in `FILE` too (cc-redact's format; repeatable)")
			f.Exclusive("no-redact", "rules")
			f.IntVar(&o.maxLines, "max-output-lines", 200, "fold a tool output after `N` lines into a closed details block (0: never)")
			f.AtLeast("max-output-lines", 0)
			f.Exclusive("out", "out-dir")
		},
		Run: o.run,
		Complete: func(_ context.Context, flag string, args []string) []string {
			if flag == "" && len(args) == 0 {
				return render.Formats
			}
			return nil
		},
	}
	return c.Main(args, stdin, stdout, stderr)
}

func (o *options) run(env *cli.Env, args []string) error {
	if len(args) == 0 {
		return cli.Usagef("missing format (%s)", cli.OneOf(render.Formats))
	}
	o.format, args = args[0], args[1:]
	if !slices.Contains(render.Formats, o.format) {
		return cli.Usagef("unknown format %q (want %s)%s", o.format, cli.OneOf(render.Formats), cli.DidYouMean(o.format, render.Formats))
	}
	o.subagents = !o.noSubagents
	if o.outDir != "" {
		if err := os.MkdirAll(o.outDir, 0o755); err != nil {
			return err
		}
	}
	var failed []string
	ropts := render.Options{Format: o.format, Warn: func(msg string) { env.Warnf("%s", msg) }, MaxOutputLines: o.maxLines}
	if !o.noRedact {
		set, err := secrets.DefaultWith(o.rules...)
		if err != nil {
			return cli.Usagef("--rules: %v", err)
		}
		ropts.Redact = set
	}
	if o.follow {
		return o.runFollow(env, args, ropts)
	}
	t := o.target(env, ropts)
	rendered := 0
	add := func(s render.Session) error {
		var err error
		if s.Path != "" {
			// Not a transcript (a binary, another tool's NDJSON, a missing
			// file): one error naming it, and no page for it.
			err = transcript.SniffAs(s.Path, s.Name(s.Path))
		}
		if err == nil {
			err = t.session(env.Ctx, s)
		}
		if err != nil && !errors.Is(err, context.Canceled) {
			env.Warnf("%v", err)
			failed = append(failed, s.Path)
			return nil
		}
		if err == nil {
			rendered++
		}
		return err
	}
	var err error
	switch {
	case len(args) > 0:
		for _, p := range args {
			if err = add(o.sessionOf(p, "")); err != nil {
				break
			}
		}
	case env.HasInput():
		err = o.readStdin(env, add)
	default:
		var list []sessions.Session
		if list, err = load.EverySession(env, o.sys, time.Time{}); err != nil {
			return err
		}
		for _, s := range list {
			if err = add(o.sessionOf(s.TranscriptPath, s.SessionID)); err != nil {
				break
			}
		}
	}
	if rendered == 0 && len(failed) > 0 {
		t.abort() // nothing to show: no page, no --out file
		return &cli.ExitError{Code: cli.ExitFail}
	}
	if cerr := t.close(); err == nil {
		err = cerr
	}
	if err == nil && len(failed) > 0 {
		err = &cli.ExitError{Code: cli.ExitFail}
	}
	return err
}

// sessionOf is the session of a transcript path.
func (o *options) sessionOf(path, id string) render.Session {
	s := render.Session{ID: id, Path: path}
	if s.ID == "" {
		s.ID = transcript.SessionID(path)
	}
	// The page is headed by the title cc-sessions gives the session (its
	// newest), read before the transcript; unreadable: none.
	s.Title, _ = sessions.Title(path)
	if o.subagents {
		s.Agents, _ = render.AgentsOf(path) // an unreadable dir just has no subagents to show
	}
	return s
}

// target is where rendered sessions go.
type target interface {
	session(ctx context.Context, s render.Session) error
	close() error
	abort() // no session rendered: the --out file, if begun, is dropped
}

func (o *options) target(env *cli.Env, ropts render.Options) target {
	switch {
	case o.outDir != "":
		return &dirTarget{dir: o.outDir, ext: "." + o.format, opts: ropts}
	case o.out != "":
		return &fileTarget{path: o.out, opts: ropts}
	}
	return &streamTarget{w: env.Stdout, opts: ropts}
}

// streamTarget writes every session into one document.
type streamTarget struct {
	w    io.Writer
	opts render.Options
	doc  *render.Doc
}

func (t *streamTarget) session(ctx context.Context, s render.Session) error {
	if t.doc == nil {
		var err error
		if t.doc, err = render.NewDoc(t.w, t.opts); err != nil {
			return err
		}
	}
	return t.doc.Session(ctx, s)
}

func (t *streamTarget) abort() {}

func (t *streamTarget) close() error {
	if t.doc == nil {
		return nil
	}
	return t.doc.Close()
}

// fileTarget writes every session into one document, a file replaced at
// the end.
type fileTarget struct {
	path string
	opts render.Options
	f    *atomicfile.File
	st   *streamTarget
	lost bool // the file's write failed and was reported with its session
}

func (t *fileTarget) session(ctx context.Context, s render.Session) error {
	if t.f == nil {
		f, err := atomicfile.Create(t.path, 0o644)
		if err != nil {
			return err
		}
		t.f, t.st = f, &streamTarget{w: f, opts: t.opts}
	}
	err := t.st.session(ctx, s)
	if err != nil && t.f.Err() != nil {
		t.lost = true
	}
	return err
}

func (t *fileTarget) abort() {
	if t.f != nil {
		t.f.Abort()
	}
}

func (t *fileTarget) close() error {
	if t.f == nil {
		var err error
		if t.f, err = atomicfile.Create(t.path, 0o644); err != nil {
			return err
		}
		t.st = &streamTarget{w: t.f, opts: t.opts}
		if t.st.doc, err = render.NewDoc(t.f, t.opts); err != nil {
			return err
		}
	}
	err := t.st.close()
	if t.lost {
		// The write error (a full disk) was reported with its session; the
		// old page stays.
		err = &cli.ExitError{Code: cli.ExitFail}
	}
	if err != nil {
		t.f.Abort()
		return err
	}
	return t.f.Commit()
}

// dirTarget writes one file per session.
type dirTarget struct {
	dir, ext string
	opts     render.Options
}

func (t *dirTarget) session(ctx context.Context, s render.Session) error {
	return renderFile(ctx, filepath.Join(t.dir, safeName(s.ID)+t.ext), s, t.opts)
}

func (t *dirTarget) close() error { return nil }

func (t *dirTarget) abort() {}

// safeName keeps a session id usable as a file name.
func safeName(id string) string {
	id = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, id)
	if id == "" || id == "." || id == ".." {
		return "session"
	}
	return id
}

// renderFile renders one session into path, atomically.
func renderFile(ctx context.Context, path string, s render.Session, opts render.Options) error {
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return err
	}
	d, err := render.NewDoc(f, opts)
	if err == nil {
		err = d.Session(ctx, s)
		if cerr := d.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
