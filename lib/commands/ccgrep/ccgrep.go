// Package ccgrep is the cc-grep command: the sessions whose transcripts,
// subagent transcripts or stored tool results contain every term (or any).
package ccgrep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/internal/load"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/records"
	"github.com/ccpipe/ccpipe/lib/search"
	"github.com/ccpipe/ccpipe/lib/searchindex"
	"github.com/ccpipe/ccpipe/lib/sessions"
)

const help = `usage: cc-grep [flags] TERM...

Prints the sessions in which every TERM (with --any: at least one) was said
or done: in a prompt, the assistant's text or thinking, a tool call's input,
a tool result (stored ones under <session>/tool-results/ included), a
subagent's transcript, or an attachment that carries user or hook content
(a mentioned file, a queued prompt, hook output). Keys, ids, metadata and
Claude Code's own boilerplate (its system prompt, tool and skill listings,
environment) are not searched: "error" matches where an error was
mentioned, not every tool result's is_error key. --raw searches the raw
bytes of the files instead, anywhere.

Terms are literal and ignore case under full Unicode case folding, as
Python's str.casefold (STRASSE matches straße, profile matches proﬁle;
rg -i does neither). .jsonl.gz and .jsonl.zst files are
read transparently. A session is read only until its answer is known, and
a file whose bytes do not hold the terms is never decoded. The content
search is answered from a trigram index under the cache dir, which each
run builds or brings up to date as it answers (only new or changed files
are read); every candidate is checked by the scan's matcher, so the answer
is the scan's. --no-cache scans without it.

Input: session records on stdin (any record with a transcript_path: from
cc-sessions, cc-sessions --active, cc-entries --with-source), searched in
input order, each session once; with no input, every session of every
profile, newest activity first. Output: the session records (the input
record unchanged, or the cc-sessions record), in that order; --sort recent
prints input records newest activity first too.

With --matches, one record per hit instead: session_id, agent_id, the
record's uuid and timestamp, where (prompt, text, thinking, tool_use,
tool_result, attachment) with the tool or attachment type and the field,
the term, and a snippet with -C N characters either side (default 80) and
the hit's offsets in it (.snippet[.match_start:.match_end] is the hit).

Examples:
  # the session where the login test was flaky
  $ cc-grep flaky login --jq .transcript_path -r

  # sessions of one project that mention either error
  $ cc-sessions --cwd-within ~/src/app | cc-grep --any ECONNRESET EPIPE

  # where it was said, with 40 characters of context
  $ cc-grep --matches -C 40 timeout --jq '"\(.where) \(.tool // "")  \(.snippet)"' -r

  # any byte, ids and paths included
  $ cc-grep --raw c0a1f003

Exit status: 0 a session matched; 1 none matched (on stderr at most the
nearest terms that do occur, for a term in no session), or a
failure (one line on stderr); 2 usage error. A file that cannot be read is
reported on stderr and the search goes on.`

// Run runs cc-grep with the process environment.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// A warm search from the index allocates a few MB (the index's
	// stores decoded, the listing) in about 20 ms; the first build,
	// hundreds, paced as usual past this.
	cli.LateFirstGC(64 << 20)
	return RunWith(cli.OS(), args, stdin, stdout, stderr)
}

type options struct {
	sys       cli.System
	any       bool
	raw       bool
	matches   bool
	context   int
	terms     []string
	workers   int
	profiles  []string
	cwdWithin []string
	window    cli.Window
	noIndex   bool
	sort      string             // "recent": newest activity first
	ix        *searchindex.Index // nil: every session is scanned
	// undecodable and firstBad: the lines that may hold a term but did
	// not decode, skipped (search.Result.Undecodable), over the run.
	undecodable int
	firstBad    search.LineAt
}

// noteBad adds a session's undecodable lines to the run's.
func (o *options) noteBad(r search.Result) {
	if r.Undecodable > 0 && o.undecodable == 0 {
		o.firstBad = r.UndecodableAt
	}
	o.undecodable += r.Undecodable
}

// warnBad says how many lines that may hold a term were skipped, not
// being records, and where the first is: a "no match" is never silent
// about a term it could not see.
func (o *options) warnBad(env *cli.Env) {
	if o.undecodable == 0 {
		return
	}
	what := "1 line holding a term could not be decoded and was skipped"
	if o.undecodable > 1 {
		what = fmt.Sprintf("%d lines holding a term could not be decoded and were skipped", o.undecodable)
	}
	env.Warnf("%s (the first: %s:%d)", what, o.firstBad.Path, o.firstBad.Number())
}

// RunWith runs cc-grep in the given System.
func RunWith(sys cli.System, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := &options{sys: sys}
	c := &cli.Command{
		Sys:      &sys,
		Name:     "cc-grep",
		Short:    "the sessions where all (or any) of some terms were said, and where",
		Synopsis: "cc-grep [--any] [--raw | --matches [-C N]] [--workers N] [--profile NAME] [--cwd-within DIR] TERM...",
		Help:     help,
		SetFlags: func(f *cli.Flags) {
			f.BoolVar(&o.any, "any", false, "keep sessions holding any term (default: every term)")
			f.BoolVar(&o.raw, "raw", false, "match the raw bytes of the files anywhere, keys, ids and boilerplate included")
			f.BoolVar(&o.matches, "matches", false, "print one record per hit (where, snippet) instead of one per session")
			f.IntVarP(&o.context, "context", "C", 80, "keep `N` characters either side of a hit in its snippet (with --matches)")
			f.IntVar(&o.workers, "workers", runtime.NumCPU(), "search `N` sessions at once")
			f.AtLeast("workers", 1)
			f.AtLeast("context", 0)
			f.Exclusive("raw", "matches").Says("--matches shows hits in content: it does not go with --raw")
			f.StringsVar(&o.profiles, "profile", "only sessions of the profile named `NAME` (repeatable)")
			f.StringsVar(&o.cwdWithin, "cwd-within", "only sessions launched in `DIR` or below (repeatable)")
			f.Enum(&o.sort, "sort", "", "print the sessions in `ORDER`: recent is newest activity first (default: input order)", []string{"recent"})
			f.BoolVar(&o.noIndex, "no-cache", false, "scan every session, neither using nor updating the search index (also CCPIPE_CACHE=off)")
			f.WindowVar(&o.window, "sessions active")
			f.RecordFormats(records.IDField)
		},
		Run: o.run,
		Complete: func(_ context.Context, flag string, _ []string) []string {
			if flag == "profile" {
				return profiles.Names(load.Profiles(o.sys))
			}
			return nil
		},
	}
	return c.Main(args, stdin, stdout, stderr)
}

func (o *options) run(env *cli.Env, terms []string) error {
	if len(terms) == 0 {
		return cli.Usagef("no TERM given")
	}
	if err := checkTerms(env, terms); err != nil {
		return err
	}
	if err := o.resolveWindow(); err != nil {
		return err
	}
	if !o.matches {
		l := load.SessionLayout
		l.Empty = "no session matched"
		env.Out.SetLayout(l)
	} else {
		env.Out.SetLayout(matchLayout)
	}
	o.terms = terms
	// From the listing, or sorted, --matches first finds the sessions
	// (stopping early in each), then reads the matching ones again for
	// their hits, in the listing's or the sorted order (hitsInOrder).
	listMatches := o.matches && (!env.HasInput() || o.sort == "recent")
	s, err := search.New(search.Options{Terms: terms, Any: o.any, Raw: o.raw, Matches: o.matches && !listMatches, Context: o.context})
	if err != nil {
		return cli.Usagef("%v", err)
	}
	if dir := o.sys.CacheDir(); dir != "" && !o.noIndex && searchindex.Usable(s.Opts()) {
		o.ix = searchindex.Open(dir, s)
		s.SetAnswerer(o.ix)
	}
	stopProgress := startProgress(env.Stderr, cli.IsTerminal(env.Stderr), s, o.ix)
	var matched int
	if env.HasInput() {
		matched, err = o.fromStdin(env, s)
	} else {
		matched, err = o.fromListing(env, s)
	}
	stopProgress()
	o.warnBad(env)
	if o.ix != nil && err == nil && matched == 0 && env.Ctx.Err() == nil {
		o.suggest(env)
	}
	if o.ix != nil {
		if cerr := o.ix.Close(); cerr != nil {
			env.Warnf("note: %v; the answer is the scan's all the same", cerr)
		}
	}
	switch {
	case err != nil:
		return err
	case env.Ctx.Err() != nil:
		return env.Ctx.Err()
	case matched == 0:
		return cli.ErrNoMatch
	}
	return nil
}

// warnErrs reports the files of a session that could not be read.
func warnErrs(env *cli.Env, r search.Result) {
	for _, err := range r.Errs {
		env.Warnf("%v", err)
	}
}

// emit writes one matching session: the record as it came, or with
// --matches a record per hit.
func (o *options) emit(env *cli.Env, line []byte, transcriptPath, sessionID string, r search.Result) error {
	if o.matches {
		return o.emitHits(env, transcriptPath, sessionID, r)
	}
	return env.Out.WriteJSON(line)
}

// fromStdin searches the session of every input record that names a
// transcript, each transcript once, and prints the matching records in
// input order as the results come in.
//
// With --sort recent the matching records are held, then printed newest
// activity first (lastActive; ties and unknown times in input order, the
// unknown last); with --matches, their hits are then read in that order.
func (o *options) fromStdin(env *cli.Env, s *search.Searcher) (int, error) {
	matched := 0
	var held []heldMatch
	p := s.Start(env.Ctx, o.workers, func(j search.Job, r search.Result) error {
		warnErrs(env, r)
		o.noteBad(r)
		if !r.Matched {
			return nil
		}
		matched++
		in := j.Data.(stdinJob)
		if o.sort == "recent" {
			held = append(held, heldMatch{in, j.TranscriptPath})
			return nil
		}
		return o.emit(env, in.line, j.TranscriptPath, in.sessionID, r)
	})
	within := sessions.CwdFilter(o.cwdWithin)
	seen := map[string]bool{}
	noPath := 0
	_, err := env.EachInput(func(line []byte, lineno int) error {
		// Any record that names a transcript, decoded once
		// (records.Classify): its cwd, profile and times come from the
		// session fields it carries.
		rec, err := classify(line)
		if err != nil || rec.TranscriptPath == "" {
			noPath++
			return nil
		}
		path := rec.TranscriptPath
		if seen[path] {
			return nil
		}
		if within != nil && !within(rec.Cwd) {
			return nil
		}
		if o.window.Set() && !o.recordInWindow(rec) {
			return nil
		}
		if len(o.profiles) > 0 && !inProfiles(rec, o.profiles) {
			return nil
		}
		seen[path] = true
		job := stdinJob{line: append([]byte(nil), line...), sessionID: rec.Session()}
		if o.sort == "recent" {
			job.last = lastActive(rec)
		}
		if err := p.Add(search.Job{TranscriptPath: path, Data: job}); err != nil {
			return ndjson.Stop(err) // the pipeline stopped: Wait tells why
		}
		return nil
	})
	werr := p.Wait()
	if noPath > 0 {
		env.Warnf("%d input record(s) without a transcript_path skipped", noPath)
	}
	_, stopped := ndjson.Stopped(err)
	switch {
	case werr != nil && !errors.Is(werr, env.Ctx.Err()):
		return matched, werr
	case err != nil && !stopped:
		return matched, fmt.Errorf("reading stdin: %w", err)
	}
	return matched, o.emitRecent(env, held)
}

// heldMatch is a matching input record held for --sort recent.
type heldMatch struct {
	stdinJob
	transcriptPath string
}

// emitRecent prints the held matches newest activity first (stable: the
// pipeline returned them in input order), or their hits with --matches.
func (o *options) emitRecent(env *cli.Env, held []heldMatch) error {
	slices.SortStableFunc(held, func(a, b heldMatch) int { return b.last.Compare(a.last) })
	if o.matches {
		list := make([]sessions.Session, len(held))
		for i, h := range held {
			list[i] = sessions.Session{TranscriptPath: h.transcriptPath, SessionID: h.sessionID}
		}
		return o.hitsInOrder(env, list)
	}
	for _, h := range held {
		if err := env.Out.WriteJSON(h.line); err != nil {
			return err
		}
	}
	return nil
}

// fromListing searches every session of the selected profiles. Only the
// transcript files are listed up front; the matching sessions alone are
// then completed by a sessions.Completer (head and tail read, joined with
// running sessions) as they are found, and printed newest activity first,
// as cc-sessions orders them.
func (o *options) fromListing(env *cli.Env, s *search.Searcher) (int, error) {
	profs, err := load.DiscoverProfiles(env, o.sys)
	if err != nil {
		return 0, err
	}
	if profs, err = load.NamedProfiles(profs, o.profiles); err != nil {
		return 0, err
	}
	files, errs := sessions.Files(env.Ctx, sessions.ProjectsDirs(profs), o.cwdWithin)
	for _, err := range errs {
		env.Warnf("%v", err)
	}
	if o.window.Set() {
		files = slices.DeleteFunc(files, func(f sessions.Session) bool { return !o.fileInWindow(f) })
	}
	o.announce(env, files)
	// Biggest first: the results are sorted at the end anyway, and a big
	// session taken up last would leave the other workers idle while it
	// is searched.
	jobs := make([]search.Job, len(files))
	for i, f := range files {
		jobs[i] = search.Job{TranscriptPath: f.TranscriptPath, Data: i}
		if st, noDir, ok := f.Listed(); ok && o.ix != nil {
			o.ix.Listed(f.TranscriptPath, st, noDir) // the listing's stat, not another
		}
	}
	slices.SortStableFunc(jobs, func(a, b search.Job) int {
		return cmp.Compare(files[b.Data.(int)].SizeBytes, files[a.Data.(int)].SizeBytes)
	})
	// The matches are completed (heads and tails read, registries joined)
	// while the search goes on.
	// With the index on, so is cc-sessions' summary cache: a matching
	// session's unchanged transcript is not read again for its record.
	var summaries *cache.Store
	if dir := o.sys.CacheDir(); dir != "" && o.ix != nil {
		summaries = cache.Open(dir, sessions.SummaryCacheName, sessions.SummaryCacheVersion)
		defer func() { _ = summaries.SaveChanged() }() // as SaveReport(false): unsaved costs a read
	}
	lo := sessions.ListOptions{CwdWithin: o.cwdWithin, Getenv: o.sys.Getenv, Cache: summaries}
	if o.ix != nil {
		lo.ReadDir = o.ix.ReadDir // the session dirs the index just listed
	}
	comp := sessions.NewCompleter(env.Ctx, profs, lo)
	// The results are kept for their hits (--matches) only: a common
	// term's hundreds were 5% of what a warm search allocated.
	byPath := map[string]search.Result{}
	matched := 0
	err = s.SearchAll(env.Ctx, o.workers, jobs, func(j search.Job, r search.Result) error {
		warnErrs(env, r)
		o.noteBad(r)
		if r.Matched {
			f := files[j.Data.(int)]
			comp.Add(f)
			matched++
			if o.matches {
				byPath[f.TranscriptPath] = r
			}
		}
		return nil
	})
	hits, errs := comp.Done()
	if err != nil || matched == 0 {
		return 0, err
	}
	for _, err := range errs {
		env.Warnf("%v", err)
	}
	if o.window.Set() {
		hits = slices.DeleteFunc(hits, func(h sessions.Session) bool { return !o.sessionInWindow(h) })
	}
	if o.matches {
		return len(hits), o.hitsInOrder(env, hits)
	}
	lines, err := marshalRecords(hits, o.workers)
	if err != nil {
		return 0, err
	}
	for i, h := range hits {
		if err := o.emit(env, lines[i], h.TranscriptPath, h.SessionID, byPath[h.TranscriptPath]); err != nil {
			return 0, err
		}
	}
	return len(hits), nil
}

// marshalRecords writes the records as cc-sessions prints them
// (ndjson.Marshal: <, > and & literal), in order, on up to workers
// goroutines: a common term's hundreds of records are written after the
// search, while nothing else runs.
func marshalRecords(hits []sessions.Session, workers int) ([][]byte, error) {
	lines := make([][]byte, len(hits))
	errs := make([]error, len(hits))
	n := min(workers, 1+len(hits)/64) // a few records: one goroutine
	part := func(w int) {
		size := 0
		for i := w; i < len(hits); i += n {
			size += hits[i].JSONSizeHint()
		}
		buf := make([]byte, 0, size) // one buffer for the worker's records
		for i := w; i < len(hits); i += n {
			start := len(buf)
			buf, errs[i] = hits[i].AppendJSON(buf)
			lines[i] = buf[start:len(buf):len(buf)]
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			part(w)
		}()
	}
	part(0)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return lines, nil
}

// inProfiles reports whether a record belongs to one of the named
// profiles: its "profiles" list (a session record) or "profile" (an
// active record).
func inProfiles(rec records.Record, names []string) bool {
	for _, n := range names {
		if n == rec.Profile || slices.Contains(rec.Profiles, n) {
			return true
		}
	}
	return false
}

// classify is the one decode of a stdin record (a seam for the test that
// counts them).
var classify = records.Classify

// checkTerms refuses terms that cannot mean what was typed, and hints when
// a term names a path (a grep habit: `cc-grep x DIR` searches for "DIR").
func checkTerms(env *cli.Env, terms []string) error {
	for _, t := range terms {
		switch {
		case t != "" && strings.TrimSpace(t) == "":
			return cli.Usagef("TERM %q is empty or only whitespace: it would match nearly every session", t)
		case strings.ContainsAny(t, "\n\r"):
			return cli.Usagef("TERM %q holds a line break, which a transcript's raw bytes never do (JSON writes it as \\n)", t)
		}
		if fi, err := os.Stat(t); err == nil && (fi.IsDir() || strings.ContainsRune(t, filepath.Separator)) {
			env.Warnf("note: TERM %q is also a path; it is searched for as text. cc-grep reads sessions, not files: to search one dir's sessions, pipe `cc-sessions --cwd-within DIR` in", t)
		}
	}
	return nil
}

// announceMin is how many bytes of transcripts a first build of the
// index must read before cc-grep says that it builds one.
var announceMin int64 = 64 << 20

// announce says on stderr that this run builds the search index, when
// it is the first and the listing is big enough for it to take a while.
func (o *options) announce(env *cli.Env, files []sessions.Session) {
	if o.ix == nil || !o.ix.First() {
		return
	}
	var total int64
	for _, f := range files {
		total += f.SizeBytes
	}
	if total >= announceMin {
		env.Warnf("building the search index of %s of transcripts in %s (this once; later searches read only what changed; --no-cache: none)", size(total), o.ix.Dir())
	}
}

// suggest names, for each term no session holds, the nearest terms that
// do occur (one edit away, found through the index and verified).
func (o *options) suggest(env *cli.Env) {
	for _, t := range o.terms {
		if sug := o.ix.Suggest(t, 3); len(sug) > 0 {
			q := make([]string, len(sug))
			for i, s := range sug {
				q[i] = strconv.Quote(s)
			}
			env.Warnf("no session holds %q; the nearest terms that do: %s", t, strings.Join(q, ", "))
		}
	}
}
