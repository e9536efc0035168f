// Package ccextract is the cc-extract command: the facts people want from
// Claude Code transcripts, one kind per run, one NDJSON fact per line.
package ccextract

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/ccpipe/ccpipe/lib/cache"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/internal/load"
	"github.com/ccpipe/ccpipe/lib/extract"
	"github.com/ccpipe/ccpipe/lib/jsonscan"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/pricing"
	"github.com/ccpipe/ccpipe/lib/records"
	"github.com/ccpipe/ccpipe/lib/transcript"
	"github.com/ccpipe/ccpipe/lib/usage"
)

const help = `usage: cc-extract KIND [flags] [TRANSCRIPT|DIR...]

Writes one NDJSON fact of KIND per line, in file order, from transcript
entries (cc-entries output) or sessions (cc-sessions output) on stdin, or
from transcript files and directories named as arguments. With neither (a
terminal or /dev/null on stdin, as in cron) it reads every session
cc-sessions lists. Every fact starts with session_id, agent_id (null outside
subagent transcripts), and the uuid and timestamp of its entry.

Kinds (the fields of each: man cc-extract, or docs/cc-extract.md):
  prompts       what was sent as a user turn (also from cc-sessions --swept)
  texts         assistant text blocks
  tools         tool calls joined with their results
  shell         Bash and PowerShell calls, exit codes and output
  files         files read or changed
  subagents     subagent runs
  failures      what went wrong: tool errors, denials, interrupts, hook
                blocks and errors, API retries and errors
  usage         one record per API message, counted once: the four token
                counts (--cost: the price as Claude Code computes it)
  compactions   compactions and their summaries
  conversation  what a person would read

usage --sum GROUP writes one record per group: session, model, day, week,
month, project, several joined with commas (day,model), or block (5-hour
billing windows as ccusage cuts them, with a burn rate and projection for
the active one). --sum session also carries the cost Claude Code recorded
and why it differs. Every kind keeps what it read of each transcript in a
cache, so a warm run reads only what changed; the output is the same without
it (--no-cache).

A session's subagents count in usage, tools, shell, files, failures and
subagents, as in Claude Code's own cost; --no-subagents leaves them out.

On a terminal the records print as a table (dollars in cents, two
significant digits under a cent); into a pipe, NDJSON with the exact
numbers. --format chooses.

Examples:
  # the shell commands that failed in the newest session
  $ cc-sessions --limit 1 | cc-extract shell --errors

  # this week's cost per day and model, as a table on a terminal
  $ cc-sessions --since 7d | cc-extract usage --cost --sum day,model --since 7d

  # what each session cost, beside what Claude Code recorded
  $ cc-sessions | cc-extract usage --cost --sum session

  # the current 5-hour window
  $ cc-extract usage --cost --sum block --jq 'select(.active)'

  # every file a session edited, once
  $ cc-sessions --limit 1 |
      cc-extract files --unique --jq 'select(.operations|index("edit")) | .path' -r

  # the prompts typed today
  $ cc-sessions --since today | cc-extract prompts --since today

Exit status: 0 ok (also when there is no fact), 1 a transcript could not be
read (the other facts are still written), usage --budgets: a limit reached
("over budget: day $5.12 of $5.00" on stderr), or another failure, 2 usage
error (also a bad --prices file: the message names the file, line and field).`

type options struct {
	all, thinking, errors, unique, subagents bool
	noSubagents                              bool
	sum                                      string
	loc                                      *time.Location
	now                                      func() time.Time
	kind                                     string // the KIND argument
	cost                                     bool
	prices                                   string
	budgets                                  string
	sys                                      cli.System
	tz, weekStart                            string
	weekday                                  *time.Weekday
	window                                   cli.Window
	// cacheDir is the System's cache dir ("" when off); noCache and
	// cacheStats are --no-cache and --cache-stats.
	cacheDir            string
	noCache, cacheStats bool
}

// Run runs cc-extract with the process environment.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunWith(cli.OS(), args, stdin, stdout, stderr)
}

// RunWith runs cc-extract in the given System (its zone decides the
// days of --sum day, its clock the active --sum block).
func RunWith(sys cli.System, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := &options{sys: sys, now: sys.Clock, cacheDir: sys.CacheDir()}
	c := &cli.Command{
		Sys:      &sys,
		Name:     "cc-extract",
		Short:    "typed facts from transcripts: prompts, tools, shell commands, failures, usage, cost",
		Synopsis: "cc-extract KIND [flags] [TRANSCRIPT|DIR...]",
		Help:     help,
		SetFlags: func(f *cli.Flags) {
			f.BoolVar(&o.all, "all", false, "prompts: also meta prompts, slash commands, interrupts and compaction summaries")
			f.BoolVar(&o.thinking, "thinking", false, "texts, conversation: also thinking blocks")
			f.BoolVar(&o.errors, "errors", false, "shell, tools: only failed calls")
			f.BoolVar(&o.unique, "unique", false, "files: one record per path with the operations seen")
			f.BoolVar(&o.subagents, "subagents", false, "also read each session's subagent transcripts (the default of usage, tools, shell, files, failures and subagents)")
			f.BoolVar(&o.noSubagents, "no-subagents", false, "read the main transcripts only: leave the subagents' calls, tokens and cost out")
			f.Exclusive("subagents", "no-subagents")
			f.StringVar(&o.sum, "sum", "", "usage: aggregate by `GROUP` (session, model, day, week, month, project, several joined with commas such as day,model; or block)")
			f.StringVar(&o.tz, "tz", "", "usage --sum: the time `ZONE` of days, weeks and months, and of --since/--until dates (an IANA name; default the local zone, TZ)")
			f.StringVar(&o.weekStart, "week-start", "monday", "usage --sum week: the first `DAY` of a week")
			f.WindowVar(&o.window, "facts (and usage messages)")
			f.RecordFormats(records.IDField)
			f.BoolVar(&o.cost, "cost", false, "usage: price each message as Claude Code does")
			f.StringVar(&o.prices, "prices", "", "usage: price the models named in `FILE` (JSON or YAML) at its rates; implies --cost")
			f.StringVar(&o.budgets, "budgets", "", "usage: exit 1 when the spend read passes a limit of the budgets section of `FILE`; implies --cost")
			f.BoolVar(&o.noCache, "no-cache", false, "read every transcript whole, neither using nor updating the cache (also CCPIPE_CACHE=off)")
			f.BoolVar(&o.cacheStats, "cache-stats", false, "report the cache's size and this run's use of it on stderr")
		},
		Run: o.run,
		Complete: func(_ context.Context, flag string, args []string) []string {
			switch {
			case flag == "sum":
				return usage.SumBy
			case flag == "week-start":
				return weekdays
			case flag == "" && len(args) == 0:
				return extract.Kinds
			}
			return nil
		},
	}
	return c.Main(args, stdin, stdout, stderr)
}

// flagKinds names the kinds each kind-specific flag applies to.
var flagKinds = []struct {
	name  string
	kinds []string
}{
	{"all", []string{"prompts"}},
	{"thinking", []string{"texts", "conversation"}},
	{"errors", []string{"shell", "tools"}},
	{"unique", []string{"files"}},
	{"sum", []string{"usage"}},
	{"cost", []string{"usage"}},
	{"prices", []string{"usage"}},
	{"budgets", []string{"usage"}},
	{"week-start", []string{"usage"}},
}

func (o *options) run(env *cli.Env, args []string) error {
	if len(args) == 0 {
		return cli.Usagef("missing KIND (one of %s)", strings.Join(extract.Kinds, ", "))
	}
	kind, paths := args[0], args[1:]
	o.kind = kind
	if !slices.Contains(extract.Kinds, kind) {
		return cli.Usagef("unknown kind %q (want one of %s)%s", kind, strings.Join(extract.Kinds, ", "), cli.DidYouMean(kind, extract.Kinds))
	}
	for _, fk := range flagKinds {
		if env.Flags.Visited(fk.name) && !slices.Contains(fk.kinds, kind) {
			return cli.Usagef("--%s applies to %s, not %s", fk.name, strings.Join(fk.kinds, " and "), kind)
		}
	}
	if err := o.calendar(env); err != nil {
		return err
	}
	explicitSubagents := o.subagents
	o.subagents = o.subagents || (extract.SubagentsByDefault(kind) && !o.noSubagents)
	var prices *pricing.Catalog
	var budgets usage.Budgets
	var spent []usage.Priced
	onPriced := func(p usage.Priced) {
		if p.TS >= usage.SpendWindow(o.now()).UnixMilli() { // older counts in no period
			spent = append(spent, p)
		}
	}
	if o.budgets != "" {
		var err error
		if budgets, err = usage.ReadBudgets(o.budgets); err != nil {
			return cli.Usagef("--budgets: %v", err)
		}
		o.cost = true
	} else {
		onPriced = nil
	}
	if o.cost {
		prices = pricing.Embedded()
	}
	prices, err := load.PriceTable(o.prices, prices)
	if err != nil {
		return err
	}
	var miss missing
	xo := extract.Options{
		Kind: kind, All: o.all, Thinking: o.thinking, Errors: o.errors, Unique: o.unique,
		Subagents: o.subagents, Sum: o.sum, Location: o.loc, Now: o.now(), Prices: prices,
		WeekStart: o.weekday, Since: o.window.Since, Until: o.window.Until,
		Warn: func(msg string) { env.Warnf("%s", msg) }, Priced: onPriced, JSONOnly: true,
	}
	var store *cache.Store
	if !o.noCache && o.cacheDir != "" {
		store = extract.OpenCache(o.cacheDir, xo)
		xo.Cache = store
	}
	x, err := extract.New(xo, func(v any) error { miss.see(v); return env.Out.Write(v) })
	if err != nil {
		return cli.Usagef("%v", err)
	}
	switch {
	case len(paths) > 0:
		skipped := 0
		err = x.ReadTranscripts(env.Ctx, func(add func(string) error) error {
			return load.Transcripts(paths, add, func(err error) { skipped++; x.Warn(fmt.Sprintf("%v: skipped", err)) })
		})
		if err == nil && skipped > 0 {
			err = &cli.ExitError{Code: cli.ExitFail, Err: fmt.Errorf("%d unreadable dirs skipped", skipped)}
		}
	case env.HasInput():
		err = o.readStdin(env, x, explicitSubagents)
	default:
		err = x.ReadTranscripts(env.Ctx, func(add func(string) error) error {
			return load.EveryTranscript(env, o.sys, o.window.Since, add)
		})
		if kind == "usage" && o.sum != "" {
			miss.missingSessions(env, o.sys, &o.window)
		}
	}
	if cerr := x.Close(); err == nil {
		err = cerr
	}
	miss.note(env.Out)
	store.SaveReport(o.cacheStats, env.Warnf)
	if o.budgets != "" {
		if berr := o.overBudget(env, budgets, spent); err == nil {
			err = berr
		}
	}
	return err
}

// overBudget checks the spend of the messages read against the budgets:
// a warn line on stderr for each period past its warn fraction, and an
// exit 1 error naming the periods at or past their limit.
func (o *options) overBudget(env *cli.Env, b usage.Budgets, msgs []usage.Priced) error {
	sp := usage.SpendOf(msgs, usage.SpendOptions{Now: o.now(), Location: o.loc, WeekStart: o.weekday})
	var over []string
	for _, s := range b.Check(sp) {
		switch s.State {
		case usage.BudgetWarn:
			env.Warnf("budget warn: %s", s)
		case usage.BudgetOver:
			over = append(over, s.String())
		}
	}
	if len(over) == 0 {
		return nil
	}
	return &cli.ExitError{Code: cli.ExitFail, Err: fmt.Errorf("over budget: %s", strings.Join(over, ", "))}
}

// readStdin tells entries from session records by the first record
// (load.FirstRecord): a session record or a hook payload means session
// records; anything else is read as transcript entries, where each line
// that is not one is named and skipped.
func (o *options) readStdin(env *cli.Env, x *extract.Extractor, explicitSubagents bool) error {
	if f, ok := env.Stdin.(*os.File); ok {
		ndjson.GrowPipe(f)
	}
	first, found := load.FirstRecord(env)
	if !found {
		return readEntries(env, x) // nothing but blank or malformed lines: report them
	}
	if first.Kind == records.Swept {
		return o.readSwept(env, o.kind)
	}
	if first.Kind == records.Session || first.Kind == records.Hook {
		return x.ReadTranscripts(env.Ctx, func(add func(string) error) error { return load.SessionRecords(env, add) })
	}
	if explicitSubagents {
		env.Warnf("--subagents reads the subagent transcripts of sessions; entries come as they are (use cc-entries --subagents)")
	}
	return readEntries(env, x)
}

func readEntries(env *cli.Env, x *extract.Extractor) error {
	var edges transcript.Edges
	entries := 0
	// 1 MiB reads: the pipe from cc-entries carries 1 MiB at a time. A
	// line is checked as JSON once: by its decode when the kind wants it
	// (jsonscan.Valid again only when the decode fails, to tell a
	// malformed line from one of the wrong shape), else by the kind's
	// filter when it walked the whole record, else by jsonscan.Valid.
	_, err := env.ReadInput(ndjson.NewReaderSize(env.Stdin, 1<<20), func(line []byte, n int, owned bool) error {
		if !transcript.Contains(line, []byte(`"type"`)) {
			if !jsonscan.Valid(line) {
				return ndjson.ErrMalformed
			}
			// A fact piped back in, or another tool's record.
			env.SkipInput(n, `not a transcript entry (no "type"), skipped`)
			return nil
		}
		// A transcript ends where transcript.Edges says, whether or not
		// the kind wants the line: the kind's filter (Wants) keeps state
		// of the file it reads too.
		var o extract.Origin
		var edge bool
		if s, ok := records.SourceOf(line); ok { // an entry (records.Classify)
			o = extract.Origin{Path: s.Path, Line: s.Line, SessionID: s.SessionID, AgentID: s.AgentID}
			sid, aid := s.SessionID, s.AgentID
			if s.Path == "" && (sid == "" || aid == "") { // cc-entries --with-source -
				lsid, laid, _, _, _ := sessionOf(line)
				sid, aid = cmp.Or(sid, lsid), cmp.Or(aid, laid)
			}
			edge = edges.Next(s.Path, sid, aid)
		} else {
			sid, aid, kind, typed, err := sessionOf(line)
			if err == nil && kind != records.Entry {
				// A fact with a "type" in its values, a cassette step: its
				// walk checked it as JSON. (A line that is not one object
				// is named below as before.)
				why := "no top-level \"type\""
				if typed {
					why = "a " + kind.String()
				}
				env.SkipInput(n, "not a transcript entry (%s), skipped", why)
				return nil
			}
			if !edges.Sourced() {
				edge = edges.Next("", sid, aid)
			}
		}
		if edge {
			if err := x.EndFile(); err != nil {
				return err
			}
		}
		if want, valid := x.WantsChecked(line); !want {
			if !valid && !jsonscan.Valid(line) {
				return ndjson.ErrMalformed
			}
			entries++
			return nil
		}
		decode := x.Decode
		if owned {
			decode = x.DecodeOwned // a huge line, not copied again
		}
		e, err := decode(line)
		if err != nil && !jsonscan.Valid(line) {
			return ndjson.ErrMalformed
		}
		entries++
		if err != nil {
			env.SkipInput(n, "%v, line skipped", err)
			return nil
		}
		if msg := extract.Mismatches(e); msg != "" {
			env.SkipInput(n, "%s", msg)
		}
		return x.Entry(o, e)
	})
	if err == nil && entries == 0 && env.SkippedInput() > 0 {
		return &cli.ExitError{Code: cli.ExitFail, Err: errors.New("<stdin>: no transcript entry read")}
	}
	return err
}

// sessionOf is the top-level sessionId and agentId of an entry's line,
// "" for none (a record without one, or a line that is not an object),
// and what records.WalkEntry tells of the line: the walk ends at the
// sessionId of an entry when no agentId can follow.
func sessionOf(line []byte) (sid, aid string, kind records.Kind, typed bool, err error) {
	agent := transcript.Contains(line, agentKey)
	kind, typed, err = records.WalkEntry(line, func(m *jsonscan.Member) bool {
		if m.Esc {
			return true
		}
		switch string(m.Key) {
		case "sessionId":
			sid = jsonscan.StringOf(m.Value)
		case "agentId":
			aid = jsonscan.StringOf(m.Value)
		default:
			return true
		}
		return sid == "" || aid == "" && agent
	})
	return sid, aid, kind, typed, err
}

var agentKey = []byte(`"agentId"`)
