// Package ccsessions is the cc-sessions command: every Claude Code
// session, past and running, as NDJSON; the running ones alone; or one
// session found by a query or by being the caller's own.
package ccsessions

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/internal/load"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/records"
	"github.com/ccpipe/ccpipe/lib/sessions"
)

const help = `usage: cc-sessions [flags]

Lists Claude Code sessions as NDJSON, newest activity first. Input: profile
records on stdin (from cc-profiles); with no input, every profile on the
machine. Each distinct projects dir is read once, even when several
profiles share it; "profiles" names every profile that uses it.

Only the start and the end of each transcript are read, so listing time
does not grow with transcript size; what they tell is cached per plain
transcript ($XDG_CACHE_HOME/ccpipe, else the user cache dir's ccpipe), so an
unchanged transcript costs a stat and a 256-byte check (--no-cache or
CCPIPE_CACHE=off: no cache; --cache-stats: its size and use, on stderr).
A session that runs now carries its
registry record in "active"; --active lists only those.

Modes (at most one):
  (default)      every session transcript, joined with the running sessions
  --active       the running sessions (<config dir>/sessions/<pid>.json whose
                 process still runs; records of another pid namespace are
                 kept with liveness "unknown")
  --find QUERY   one session: pid:<n>, <profile>/<name>, a session id, a
                 running session's name, a unique prefix of a session id,
                 or a title (custom or AI; running sessions, then ended)
  --current      the session this command runs inside (a Bash tool call, a
                 hook): from CLAUDE_PID / CLAUDE_CODE_SESSION_ID, else the
                 first registered parent process
  --swept        sessions whose transcript Claude Code's cleanup deleted and
                 no archive holds, from the prompts history.jsonl kept:
                 session_id, project, profiles, history_path, first_prompt,
                 first_prompt_at, last_prompt_at, prompt_count (newest
                 first); cc-extract prompts reads their prompts
  --missing      sessions Claude Code ran that left no readable transcript:
                 named by history.jsonl or the registry with no transcript,
                 or a transcript of markers only; each with its likely cause
                 (swept, not_written: a failed write or a removed file,
                 bridge_markers_only, markers_only) and fix

Session record: session_id, transcript_path, project_dir, profiles, cwd
(launch dir), title, first_prompt, started_at, last_activity_at,
size_bytes, compressed, has_subagents, source (live | archive: archive
dirs in $CCPIPE_ARCHIVE are read too, a session once), active (null or the
--active record).
Sessions without an archive copy that Claude Code's cleanup deletes within
7 days (cleanupPeriodDays in settings.json, default 30) are warned about
once on stderr.
--active record: address, profile, pid, session_id, name, name_source,
status, waiting_for, cwd, kind, entrypoint, version, tmux, socket_path,
scratchpad_dir, scratchpad_dir_inferred, transcript_path, started_at,
updated_at, liveness, compatibility, record_path, raw. Unknown values are
null. See docs/cc-sessions.md.

Examples:
  # the ten latest sessions with their titles
  $ cc-sessions --limit 10 --jq '[.last_activity_at, .title // .first_prompt] | @tsv' -r

  # sessions launched under a project, in one profile
  $ cc-profiles --profile work | cc-sessions --cwd-within ~/src/app

  # what runs now, and where its socket is
  $ cc-sessions --active --jq '{address, status, socket_path}'

  # a Bash tool call finds its own session
  $ cc-sessions --current --jq .transcript_path -r

Exit status: 0 ok; 1 nothing found (--find, --current: with a line on
stderr; an ambiguous --find lists the candidates) or a failure; 2 usage
error.`

// Run runs cc-sessions with the process environment.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cli.LateFirstGC(64 << 20) // a listing from the summary cache: a few MB
	return RunWith(cli.OS(), args, stdin, stdout, stderr)
}

type options struct {
	sys       cli.System
	profiles  []string
	cwdWithin []string
	limit     int
	active    bool
	find      string
	cwd       string
	current   bool
	window    cli.Window
	swept     bool
	missing   bool
	// noCache and cacheStats are --no-cache and --cache-stats.
	noCache, cacheStats bool
}

// RunWith runs cc-sessions in the given System.
func RunWith(sys cli.System, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := &options{sys: sys}
	c := &cli.Command{
		Sys:      &sys,
		Name:     "cc-sessions",
		Short:    "Claude Code sessions, past and running; find one by address, name, id or pid",
		Synopsis: "cc-sessions [--active | --find QUERY | --current | --swept | --missing] [--profile NAME] [--cwd-within DIR] [--limit N]",
		Help:     help,
		SetFlags: func(f *cli.Flags) {
			f.StringsVar(&o.profiles, "profile", "only the profile named `NAME` (repeatable)")
			f.StringsVar(&o.cwdWithin, "cwd-within", "only sessions launched in `DIR` or below (repeatable)")
			f.IntVar(&o.limit, "limit", 0, "at most `N` records (0: all)")
			f.AtLeast("limit", 0)
			f.BoolVar(&o.active, "active", false, "only running sessions, as registry records")
			f.StringVar(&o.find, "find", "", "one session: pid:<n>, <profile>/<name>, id, name or id prefix (`QUERY`)")
			f.StringVar(&o.cwd, "cwd", "", "with --find: look in the project dirs of `DIR` first")
			f.BoolVar(&o.current, "current", false, "the session this command runs inside")
			f.WindowVar(&o.window, "sessions last active")
			f.RecordFormats(records.IDField)
			f.Exclusive("active", "find", "current", "swept", "missing")
			f.Requires("cwd", "find")
			// Silently ignoring them would answer another question than asked.
			const listing = "--cwd-within, --limit, --since and --until work with the listing and --active, not with --find or --current"
			for _, a := range []string{"cwd-within", "limit", "since", "until"} {
				for _, b := range []string{"find", "current"} {
					f.Exclusive(a, b).Says(listing)
				}
			}
			f.BoolVar(&o.swept, "swept", false, "sessions whose transcript is gone and never archived, from history.jsonl")
			f.Exclusive("swept", "cwd-within").Says("--cwd-within does not work with --swept")
			f.BoolVar(&o.missing, "missing", false, "sessions Claude Code ran that left no readable transcript, with the likely cause and fix")
			f.Exclusive("missing", "cwd-within").Says("--cwd-within does not work with --missing")
			for _, c := range []string{"no-cache", "cache-stats"} {
				for _, m := range []string{"active", "current", "swept", "missing"} {
					f.Exclusive(c, m).Says("--no-cache and --cache-stats work with the listing and --find")
				}
			}
			f.BoolVar(&o.noCache, "no-cache", false, "listing and --find: read every transcript's head and tail, neither using nor updating the cache (also CCPIPE_CACHE=off)")
			f.BoolVar(&o.cacheStats, "cache-stats", false, "listing and --find: report the cache's size and this run's use of it on stderr")
		},
		Run: o.run,
		Complete: func(ctx context.Context, flag string, _ []string) []string {
			profs := load.Profiles(o.sys)
			switch flag {
			case "find":
				return sessions.RunningNames(ctx, profs, o.sys.Getenv)
			case "profile":
				return profiles.Names(profs)
			}
			return nil
		},
	}
	return c.Main(args, stdin, stdout, stderr)
}

func (o *options) run(env *cli.Env, args []string) error {
	if len(args) > 0 {
		return cli.Usagef("unexpected argument %q", args[0])
	}
	switch {
	case env.Flags.Visited("find") && o.find == "":
		return cli.Usagef("--find needs a QUERY")
	}
	loc, _ := cli.ZoneFlag(o.sys, "")
	if err := o.window.Resolve(o.sys.Clock(), loc); err != nil {
		return err
	}
	switch {
	case o.active:
		env.Out.SetLayout(load.ActiveLayout)
	case o.missing:
		env.Out.SetLayout(missingLayout)
	default:
		env.Out.SetLayout(load.SessionLayout)
	}
	profs, err := o.loadProfiles(env)
	if err != nil || profs == nil {
		return err
	}
	switch {
	case o.find != "":
		store := load.SummaryStore(o.sys, o.noCache)
		s, err := sessions.Find(env.Ctx, o.find, profs, sessions.FindOptions{Cwd: o.cwd, Getenv: o.sys.Getenv,
			Warn: func(err error) { env.Warnf("%v", err) }, Cache: store})
		store.SaveReport(o.cacheStats, env.Warnf)
		return o.one(env, s, err)
	case o.current:
		s, err := sessions.Current(env.Ctx, profs, sessions.CurrentOptions{
			FindOptions: sessions.FindOptions{Getenv: o.sys.Getenv},
			Getenv:      o.sys.Getenv, Pid: o.sys.Pid,
		})
		var nf *sessions.NotFoundError
		if errors.As(err, &nf) {
			return errors.New("not inside a Claude Code session: no CLAUDE_PID or CLAUDE_CODE_SESSION_ID of a known session, and no registered parent process")
		}
		return o.one(env, s, err)
	case o.active:
		return o.listActive(env, profs)
	case o.missing:
		list, errs := sessions.MissingSessions(env.Ctx, profs, o.sys.Clock())
		warn(env, errs)
		return writeSome(env, list, o.limit)
	case o.swept:
		list, errs := sessions.SweptSessions(env.Ctx, profs)
		warn(env, errs)
		return writeSome(env, list, o.limit)
	}
	list := load.Listing(env, o.sys, profs, load.ListOptions{CwdWithin: o.cwdWithin, NoCache: o.noCache, CacheStats: o.cacheStats, Since: o.window.Since})
	if n := sessions.UnarchivedNearCleanup(env.Ctx, profs, list, o.sys.Clock()); n.Sessions > 0 {
		env.Warnf("%d sessions have no archive copy and are within %d days of Claude Code's cleanup (cleanupPeriodDays %d): archive them with cc-sessions | cc-entries --archive DIR, from then on with the SessionEnd hook cc-entries --archive DIR --print-settings prints, and set CCPIPE_ARCHIVE=DIR (see cc-entries)",
			n.Sessions, sessions.CleanupWarnDays, n.PeriodDays)
	}
	n := 0
	for _, s := range list {
		if o.window.Set() && !o.window.Contains(s.LastActivityAt) {
			continue
		}
		if o.limit > 0 && n >= o.limit {
			break
		}
		n++
		if err := env.Out.Write(s); err != nil {
			return err
		}
	}
	return env.Ctx.Err()
}

// loadProfiles reads profile records from stdin, else discovers every
// profile; --profile selects. nil, nil means an empty input: print nothing.
func (o *options) loadProfiles(env *cli.Env) ([]profiles.Profile, error) {
	var profs []profiles.Profile
	if env.HasInput() {
		skipped := 0
		_, err := env.EachInput(func(line []byte, lineno int) error {
			p, err := profiles.FromRecord(line)
			if err == nil {
				// A config_dir in a record of another kind (records.Classify).
				if rec, _ := records.Classify(line); rec.Kind != records.Profile {
					err = fmt.Errorf("a %s with a config_dir", rec.Kind)
				}
			}
			if err != nil {
				env.SkipInput(lineno, "not a profile record, skipped: %v", err)
				skipped++
				return nil
			}
			if p.Name == "" {
				p.Name = profiles.ClashName(p.ConfigDir)
			}
			profs = append(profs, p)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading stdin: %w", err)
		}
		if len(profs) == 0 {
			return nil, nil
		}
	} else {
		var err error
		if profs, err = load.DiscoverProfiles(env, o.sys); err != nil {
			return nil, err
		}
	}
	return load.NamedProfiles(profs, o.profiles)
}

func (o *options) listActive(env *cli.Env, profs []profiles.Profile) error {
	list, errs := sessions.ActiveSessions(env.Ctx, profs, sessions.ActiveOptions{Getenv: o.sys.Getenv})
	warn(env, errs)
	within := sessions.CwdFilter(o.cwdWithin)
	n := 0
	for _, a := range list {
		if within != nil && !within(a.Cwd) {
			continue
		}
		if last := a.UpdatedAt; o.window.Set() && !o.window.Contains(cmp.Or(last, a.StartedAt)) {
			continue
		}
		if o.limit > 0 && n >= o.limit {
			break
		}
		n++
		if err := env.Out.Write(a); err != nil {
			return err
		}
	}
	return nil
}

// one prints the result of --find or --current, or its failure: not found
// is one line; ambiguous lists the candidates on stderr, and as records
// on stdout when --jq asks for records.
func (o *options) one(env *cli.Env, s sessions.Session, err error) error {
	var amb *sessions.AmbiguousError
	switch {
	case errors.As(err, &amb):
		env.Warnf("%v; candidates:", err)
		for _, c := range amb.Candidates {
			fmt.Fprintf(env.Stderr, "  %s\n", cli.Mask(c.Describe()))
		}
		if env.Out.Filtering() {
			for _, c := range amb.Candidates {
				if werr := env.Out.Write(c); werr != nil {
					return werr
				}
			}
		}
		return &cli.ExitError{Code: cli.ExitFail}
	case err != nil:
		return err
	}
	return env.Out.Write(s)
}

func warn(env *cli.Env, errs []error) {
	for _, e := range errs {
		env.Warnf("%v", e)
	}
}

// now is the System's clock (time.Now when unset).

// missingLayout is how --missing records show as a table: the fix last,
// where the width cuts.
var missingLayout = cli.Layout{Empty: "no missing sessions", Columns: []cli.Column{
	{Head: "Session", Keys: []string{"session_id"}, Kind: cli.IDPrefix},
	{Head: "Last Seen", Keys: []string{"last_seen_at"}, Kind: cli.Time},
	{Head: "Cause", Keys: []string{"cause"}},
	{Head: "Prompts", Keys: []string{"prompt_count"}, Kind: cli.Count},
	{Head: "Project", Keys: []string{"project"}, Kind: cli.Path},
	{Head: "Fix", Keys: []string{"fix"}},
}}

// writeSome writes the records of list, at most limit of them (0: all).
func writeSome[T any](env *cli.Env, list []T, limit int) error {
	for i, s := range list {
		if limit > 0 && i >= limit {
			break
		}
		if err := env.Out.Write(s); err != nil {
			return err
		}
	}
	return env.Ctx.Err()
}
