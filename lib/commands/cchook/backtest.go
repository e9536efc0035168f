package cchook

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/hooks/backtest"
	"github.com/ccpipe/ccpipe/lib/hooks/rules"
	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/records"
)

// backtest runs a rule file on the payloads past sessions sent: one
// record per payload a rule answered (--all: every payload).
func (o *options) backtest(env *cli.Env, args []string) error {
	if len(args) == 0 {
		return cli.Usagef("backtest needs a rule file, then transcripts or dirs (or session records or cc-entries lines on stdin)")
	}
	env.Out.SetLayout(backtestLayout)
	f, err := rules.LoadFile(args[0])
	if err != nil {
		return err
	}
	if err := f.LintError(""); err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	var tried []string
	for _, r := range f.Rules {
		for _, e := range r.Events {
			if !slices.Contains(backtest.Events, e) && !slices.Contains(tried, e) {
				tried = append(tried, e)
				env.Warnf("backtest: %s payloads cannot be rebuilt from a transcript; the rules naming only it are not tried", e)
			}
		}
	}
	opts := backtest.Options{RunUnless: o.runUnless, All: o.all, Warn: func(msg string) { env.Warnf("%s", msg) }}
	emit := func(r backtest.Record) error { return env.Out.Write(r) }
	var paths []string
	skipped, errs := 0, 0
	switch {
	case len(args) > 1:
		for _, p := range args[1:] {
			ps, err := transcriptsUnder(p)
			if err != nil {
				env.Warnf("%v: skipped", err)
				skipped++
			}
			paths = append(paths, ps...)
		}
	case env.HasInput():
		var fd *backtest.Feed
		if paths, fd, err = readStdin(env, f, opts, emit); err != nil {
			return err
		}
		if fd != nil {
			if errs, err = fd.Close(); err != nil {
				return err
			}
		}
	default:
		return cli.Usagef("backtest: no input: name transcripts or dirs, or pipe cc-sessions or cc-entries output")
	}
	if len(paths) > 0 {
		produce := func(add func(string) error) error {
			for _, p := range paths {
				if err := add(p); err != nil {
					return err
				}
			}
			return nil
		}
		if errs, err = backtest.Run(env.Ctx, f, opts, produce, emit); err != nil {
			return err
		}
	}
	if errs > 0 {
		return &cli.ExitError{Code: cli.ExitFail, Err: fmt.Errorf("backtest: the rule file failed on %d payloads (decision \"error\")", errs)}
	}
	if skipped > 0 {
		return &cli.ExitError{Code: cli.ExitFail, Err: fmt.Errorf("backtest: %d unreadable paths skipped", skipped)}
	}
	return nil
}

// transcriptsUnder is p itself, or for a dir the main transcripts under
// it (<session>.jsonl, not the subagents' files, which are read with
// their session), in name order.
func transcriptsUnder(p string) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil || !st.IsDir() {
		return []string{p}, nil // a missing file is reported by the reader
	}
	var out []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != p && layout.IsSkipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), ".jsonl") {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("listing %s: %w", p, err)
	}
	return out, nil
}

// readStdin reads session records (or hook payloads: their
// transcript_path; the transcripts are listed, each once, for Run) or
// transcript entries (cc-entries lines, with or without cc_source: fed to
// a Feed as they come). records.Classify, the one stdin classifier, tells
// what a line is; the first line that is either decides which the input
// is, and a line of the other kind (or a fact) is skipped with a warning.
func readStdin(env *cli.Env, f *rules.File, opts backtest.Options, emit func(backtest.Record) error) ([]string, *backtest.Feed, error) {
	var out []string
	var fd *backtest.Feed
	entries, decided := false, false
	seen := map[string]bool{}
	_, err := env.EachInput(func(line []byte, n int) error {
		rec, err := records.Classify(line)
		if err != nil {
			env.SkipInput(n, "not a JSON object, skipped")
			return nil
		}
		p := rec.SessionPath()
		if rec.Kind != records.Entry && p == "" {
			env.SkipInput(n, "a %s, neither a transcript entry nor a record with a transcript_path, skipped", rec.Kind)
			return nil
		}
		if !decided {
			decided = true
			if entries = rec.Kind == records.Entry; entries {
				if fd, err = backtest.NewFeed(env.Ctx, f, opts, emit); err != nil {
					return err
				}
			}
		}
		if entries != (rec.Kind == records.Entry) {
			want := "session records"
			if entries {
				want = "transcript entries"
			}
			env.SkipInput(n, "a %s in input of %s (as its first record says), skipped", rec.Kind, want)
			return nil
		}
		if entries {
			// Where the line came from: cc_source, when cc-entries gave it
			// (Classify read it).
			var src backtest.Source
			if s := rec.Source; s != nil {
				src = backtest.Source{Path: s.Path, SessionID: s.SessionID, AgentID: s.AgentID}
			}
			if err := fd.Line(line, src); err != nil {
				if errors.Is(err, backtest.ErrNotEntry) {
					env.SkipInput(n, "%v, skipped", err)
					return nil
				}
				return err
			}
			return nil
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
		return nil
	})
	return out, fd, err
}
