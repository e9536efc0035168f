package ccentries

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/internal/load"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/records"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// source is one transcript to read: a file, or raw lines on stdin.
type source struct {
	path      string // "" for stdin
	sessionID string
	stdin     bool
}

// runner holds one invocation's state.
type runner struct {
	o      *options
	env    *cli.Env
	topts  transcript.Options
	sel    transcript.Select
	files  []transcript.Diagnostics
	totals transcript.Diagnostics
	failed bool
	seen   map[string]bool
	mu     sync.Mutex // serialises output and state between followers
}

// outputError marks an error of the output (a closed pipe, a --jq
// failure): it ends the command, unlike a transcript that cannot be read.
type outputError struct{ err error }

func (e *outputError) Error() string { return e.err.Error() }
func (e *outputError) Unwrap() error { return e.err }

func (o *options) run(env *cli.Env, args []string) error {
	if err := o.check(env.Flags, args); err != nil {
		return err
	}
	sel, err := o.selection()
	if err != nil {
		return err
	}
	env.Out.SetLayout(entryLayout)
	if o.follow {
		if err := env.Out.Endless("--follow"); err != nil {
			return err
		}
	}
	r := &runner{o: o, env: env, sel: sel, totals: transcript.NewDiagnostics(), seen: map[string]bool{}}
	r.topts = transcript.Options{Types: o.types, Decode: o.diagnostics, MaxLine: o.maxLine}
	if o.subagents {
		o.withSource = true
	}
	if o.archive != "" {
		// Refused up front for every config dir known, not only the
		// sources' own: a copy inside any of them is a second transcript.
		var dirs []string
		for _, p := range load.Profiles(o.sys) {
			if !profiles.IsArchive(p) { // the archive itself ($CCPIPE_ARCHIVE) is where copies go
				dirs = append(dirs, p.ConfigDir, p.ProjectsDir)
			}
		}
		if err := transcript.CheckArchiveDir(o.archive, dirs); err != nil {
			return fmt.Errorf("--archive: %w", err)
		}
		if o.settings {
			return o.printSettings(env)
		}
	}

	var srcs []source
	if len(args) == 0 && !env.HasInput() {
		// Neither paths nor a pipe: every session, as cc-sessions lists
		// them; with --since, not those last written before it, unless
		// --follow waits for records they may still get.
		var since time.Time
		if !o.follow {
			since = sel.Since
		}
		list, err := load.EverySession(env, o.sys, since)
		if err != nil {
			return err
		}
		for _, s := range list {
			srcs = append(srcs, source{path: s.TranscriptPath, sessionID: s.SessionID})
		}
	} else if len(args) == 0 {
		if o.follow {
			// Followers run side by side, so the records are collected first.
			if srcs, err = r.sessionRecords(nil); err != nil {
				return err
			}
		} else if _, err := r.sessionRecords(r.one); err != nil {
			return err
		}
	} else {
		for _, a := range args {
			if a == "-" {
				srcs = append(srcs, source{stdin: true})
			} else {
				srcs = append(srcs, source{path: a, sessionID: transcript.SessionID(a)})
			}
		}
	}
	if o.follow {
		err = r.followAll(srcs)
	} else {
		for _, s := range srcs {
			if err = r.one(s); err != nil {
				break
			}
		}
	}
	if err == nil && o.diagnostics {
		r.printDiagnostics()
	}
	if err != nil {
		var oe *outputError
		if errors.As(err, &oe) {
			return oe.err
		}
		return err
	}
	if r.failed {
		return &cli.ExitError{Code: cli.ExitFail}
	}
	return nil
}

// check refuses flag combinations that cannot mean anything.
func (o *options) check(f *cli.Flags, args []string) error {
	stdin := 0
	for _, a := range args {
		if a == "-" {
			stdin++
		}
	}
	switch {
	case stdin > 1:
		return cli.Usagef(`"-" (stdin) can be given once`)
	case o.settings && len(args) > 0:
		return cli.Usagef("--print-settings takes no transcripts: the hook archives the session that ends")
	case o.archive != "" && stdin > 0:
		return cli.Usagef(`--archive needs transcript files, not "-"`)
	case o.branch && stdin > 0:
		return cli.Usagef(`--branch reads a file twice: it cannot read "-"`)
	case f.Visited("tail") && o.tail < 0:
		// -1 is the unset default: a negative N must not read as "no --tail".
		return cli.Usagef("--tail must be 0 or more")
	case o.maxLine < 0 || (f.Visited("max-line") && o.maxLine == 0):
		// 0 is the unset default (1 GiB): an explicit 0 or a negative bound
		// must not silently lift the limit.
		return cli.Usagef("--max-line must be positive")
	}
	return nil
}

// selection parses --since, --until and --tail.
func (o *options) selection() (transcript.Select, error) {
	var sel transcript.Select
	if o.window.Set() {
		loc, _ := cli.ZoneFlag(o.sys, "")
		if err := o.window.Resolve(o.now(), loc); err != nil {
			return sel, err
		}
		sel.Since, sel.Until = o.window.Since, o.window.Until
	}
	switch {
	case o.tail == 0:
		sel.Tail = -1 // none of the existing records (with --follow: only new ones)
	case o.tail > 0:
		sel.Tail = o.tail
	}
	sel.Branch = o.branch
	return sel, nil
}

// sessionRecords reads session records from stdin. With fn each is read
// as it arrives; without, they are returned.
func (r *runner) sessionRecords(fn func(source) error) ([]source, error) {
	var srcs []source
	hinted := false
	_, err := r.env.EachInput(func(line []byte, n int) error {
		// Any record that names a transcript (records.Classify): a
		// session record, a hook payload, a fact with a transcript_path,
		// and cc-entries' own lines by their cc_source.
		ref, err := records.Classify(line)
		if err != nil || ref.TranscriptPath == "" {
			msg := "record has no transcript_path, skipped"
			if !hinted {
				msg += ` (for raw transcript lines on stdin, give "-")`
				hinted = true
			}
			r.env.SkipInput(n, "%s", msg)
			r.failed = true
			return nil
		}
		if r.seen[ref.TranscriptPath] {
			return nil // several records of one session (cc-entries output)
		}
		r.seen[ref.TranscriptPath] = true
		s := source{path: ref.TranscriptPath, sessionID: ref.Session()}
		if fn != nil {
			return fn(s)
		}
		srcs = append(srcs, s)
		return nil
	})
	if r.env.SkippedInput() > 0 {
		r.failed = true // one rule: a stdin line that was not a session record
	}
	return srcs, err
}

// one reads one source to its end (with its subagents), or archives it.
func (r *runner) one(s source) error {
	if r.o.archive != "" {
		return r.archiveOne(s)
	}
	if s.stdin {
		return r.stream(r.env.Ctx, transcript.Source{Reader: r.env.Stdin}, s, "", "")
	}
	if err := r.stream(r.env.Ctx, transcript.Source{Path: s.path}, s, "", ""); err != nil {
		return err
	}
	if !r.o.subagents {
		return nil
	}
	subs, err := transcript.Subagents(s.path)
	if err != nil {
		r.fail(s.path, err)
		return nil
	}
	for _, sa := range subs {
		tool := ""
		if sa.Meta != nil {
			tool = sa.Meta.ToolUseID
		}
		if err := r.stream(r.env.Ctx, transcript.Source{Path: sa.Path}, s, sa.AgentID, tool); err != nil {
			return err
		}
	}
	return nil
}

// stream reads one file. A file that cannot be read is reported and
// skipped; only an output error is returned.
func (r *runner) stream(ctx context.Context, ts transcript.Source, s source, agentID, toolUseID string) error {
	name := ts.Name()
	warned, more := 0, 0
	opts := r.topts
	if !r.o.diagnostics {
		opts.Warn = func(line int, err error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			if warned >= maxWarnings {
				more++
				return
			}
			warned++
			r.env.Warnf("%s:%d: %v", name, line, err)
		}
	}
	emit := r.emitter(s, ts.Path, agentID, toolUseID)
	d, err := transcript.Stream(ctx, ts, opts, r.sel, emit)
	r.mu.Lock()
	defer r.mu.Unlock()
	if more > 0 {
		r.env.Warnf("%s: %d more skipped lines not shown (see --diagnostics)", name, more)
	}
	r.files = append(r.files, d)
	r.totals.Add(d)
	if err != nil {
		var oe *outputError
		if errors.As(err, &oe) {
			return err
		}
		if errors.Is(err, context.Canceled) {
			return nil
		}
		r.fail(name, err)
	}
	return nil
}

// maxWarnings is how many skipped lines of one file are named on stderr.
const maxWarnings = 10

// fail reports a transcript that could not be read; the run goes on and
// exits 1.
func (r *runner) fail(name string, err error) {
	r.failed = true
	r.env.Warnf("%s: %v", name, err)
}

// emitter returns the per-line output function of one file.
func (r *runner) emitter(s source, path, agentID, toolUseID string) func(*transcript.Line) error {
	var src *sourceField
	if r.o.withSource {
		src = newSourceField(path, s.sessionID, agentID, toolUseID)
	}
	var buf []byte
	return func(l *transcript.Line) error {
		b := l.Bytes
		if src != nil {
			buf = src.insert(buf[:0], b, l.Number, l.Header.SessionID)
			b = buf
		}
		if r.o.follow {
			r.mu.Lock()
			defer r.mu.Unlock()
		}
		err := r.env.Out.WriteJSON(b)
		if err == nil && r.o.follow {
			err = r.env.Out.Flush()
		}
		if err != nil {
			return &outputError{err}
		}
		return nil
	}
}

// diagnosticsRecord is what --diagnostics prints on stderr.
type diagnosticsRecord struct {
	Files  []transcript.Diagnostics `json:"files"`
	Totals transcript.Diagnostics   `json:"totals"`
}

func (r *runner) printDiagnostics() {
	files := r.files
	if files == nil {
		files = []transcript.Diagnostics{}
	}
	b, err := ndjson.Marshal(diagnosticsRecord{Files: files, Totals: r.totals})
	if err != nil {
		r.env.Warnf("diagnostics: %v", err)
		return
	}
	fmt.Fprintf(r.env.Stderr, "%s\n", b)
}

// archiveOne writes the zstd copies of one session and prints a record per
// file.
func (r *runner) archiveOne(s source) error {
	err := transcript.Archive(r.env.Ctx, s.path, r.o.archive, func(res transcript.ArchiveResult) error {
		if err := r.env.Out.Write(res); err != nil {
			return &outputError{err}
		}
		return nil
	})
	var oe *outputError
	if errors.As(err, &oe) {
		return err
	}
	if errors.Is(err, transcript.ErrArchiveInConfigDir) {
		// Not this session's fault: every other one would be refused too.
		return fmt.Errorf("--archive: %w", err)
	}
	if err != nil {
		r.fail(s.path, err)
	}
	return nil
}
