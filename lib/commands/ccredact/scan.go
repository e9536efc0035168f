package ccredact

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/internal/load"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/records"
	"github.com/ccpipe/ccpipe/lib/regular"
	"github.com/ccpipe/ccpipe/lib/search"
	"github.com/ccpipe/ccpipe/lib/sequencer"
	"github.com/ccpipe/ccpipe/lib/sessions"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// finding is one --scan output record. Unknown values are null.
type finding struct {
	SessionID *string `json:"session_id"`
	Path      *string `json:"path"`
	Line      int     `json:"line"`
	Field     *string `json:"field"`
	Kind      string  `json:"kind"`
}

// scanLayout is how --scan's findings show on a terminal: where each
// secret is and what kind (never the secret).
var scanLayout = cli.Layout{Columns: []cli.Column{
	{Head: "Session", Keys: []string{"session_id"}, Kind: cli.IDPrefix},
	{Head: "Line", Keys: []string{"line"}},
	{Head: "Kind", Keys: []string{"kind"}},
	{Head: "Field", Keys: []string{"field"}},
	{Head: "Path", Keys: []string{"path"}, Kind: cli.Path},
}, Empty: "no secrets found"}

func ptr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// result is what one scan job produced: its findings and its warnings, in
// order, printed by the main goroutine.
type result struct {
	path     string // the file scanned, named in the count of the rest
	findings []finding
	warnings []string
	more     int // warnings past the first maxWarnings
	failed   bool
}

func (res *result) warnf(format string, a ...any) {
	res.failed = true
	if len(res.warnings) < maxWarnings {
		res.warnings = append(res.warnings, fmt.Sprintf(format, a...))
	} else {
		res.more++
	}
}

// scanner runs scan jobs on workers and prints their results in the order
// the jobs were added (lib/sequencer).
type scanner struct {
	r   *runner
	seq *sequencer.Sequencer[result]
}

func (r *runner) newScanner() *scanner {
	s := &scanner{r: r}
	// Not env.Ctx: on an interrupt what was scanned is still printed (scan).
	s.seq = sequencer.Start(context.Background(), r.o.workers, 4, s.print)
	return s
}

func (s *scanner) print(res result) error {
	for _, w := range res.warnings {
		s.r.env.Warnf("%s", w)
	}
	if res.more > 0 {
		s.r.env.Warnf("%s: %d more warnings not shown (%d in all)", res.path, res.more, res.more+len(res.warnings))
	}
	if res.failed {
		s.r.failed = true
	}
	for _, f := range res.findings {
		s.r.found++
		if err := s.r.env.Out.Write(f); err != nil {
			return err
		}
	}
	return nil
}

// add queues a job; it returns the printing error that stopped the run,
// if any.
func (s *scanner) add(run func() result) error {
	return s.seq.Add(func(context.Context, int) result { return run() })
}

// wait ends the scan and returns the printing error, if any.
func (s *scanner) wait() error { return s.seq.Wait() }

// scan prints the findings of the inputs: stdin records, sessions, files,
// or every session of the profiles.
func (r *runner) scan(args []string) error {
	s := r.newScanner()
	err := r.scanInputs(s, args)
	if werr := s.wait(); err == nil {
		err = werr
	}
	err, _ = ndjson.Stopped(err)
	if err != nil && r.env.Ctx.Err() != nil {
		return nil // interrupted: what was found is printed
	}
	return err
}

func (r *runner) scanInputs(s *scanner, args []string) error {
	switch {
	case len(args) > 0:
		for _, a := range args {
			var err error
			if a == "-" {
				err = r.scanStdin(s, false)
			} else {
				err = r.scanSession(s, a, "")
			}
			if err != nil {
				return err
			}
		}
		return nil
	case r.env.HasInput():
		return r.scanStdin(s, true)
	default:
		return r.scanProfiles(s)
	}
}

// scanProfiles scans every session of the selected profiles.
func (r *runner) scanProfiles(s *scanner) error {
	profs, err := load.DiscoverProfiles(r.env, r.o.sys)
	if err != nil {
		return err
	}
	if profs, err = load.NamedProfiles(profs, r.o.profiles); err != nil {
		return err
	}
	files, errs := sessions.Files(r.env.Ctx, sessions.ProjectsDirs(profs), nil)
	for _, err := range errs {
		r.fail("%v", err)
	}
	for _, f := range files {
		if err := r.scanSession(s, f.TranscriptPath, f.SessionID); err != nil {
			return err
		}
	}
	return nil
}

// scanSession queues every file of a session: the main transcript, its
// subagents and tool-results. A path that is not a main transcript (a
// subagent file, a text file) is scanned alone.
func (r *runner) scanSession(s *scanner, path, id string) error {
	if err := r.env.Ctx.Err(); err != nil {
		return err
	}
	if r.seen[path] {
		return nil
	}
	r.seen[path] = true
	if id == "" {
		id = records.SessionOfPath(path)
	}
	files, err := search.SessionFiles(path)
	if err != nil {
		r.fail("%v", err)
	}
	for _, f := range files {
		if err := s.add(func() result { return r.scanFile(f.Path, id) }); err != nil {
			return err
		}
	}
	return nil
}

// isRecords tells a file of JSON lines from a text file (tool-results).
func isRecords(path string) bool {
	_, ok := transcript.TrimSuffix(path)
	return ok
}

func (r *runner) scanFile(path, id string) result {
	if isRecords(path) {
		return r.scanRecords(path, id)
	}
	res := result{path: path}
	// A FIFO or a device planted among a session's files would block the
	// read or never end: only a regular file is read.
	f, err := regular.Open(path)
	if err != nil {
		res.warnf("%v", err)
		return res
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		res.warnf("%s: %v", path, err)
		return res
	}
	line, last := 1, 0
	for _, m := range r.set.Find(data) {
		line += bytes.Count(data[last:m.Start], []byte("\n"))
		last = m.Start
		res.findings = append(res.findings, finding{SessionID: ptr(id), Path: ptr(path), Line: line, Kind: m.Kind})
	}
	return res
}

// scanRecords scans a transcript (plain, .gz or .zst) line by line. Only
// lines holding a keyword are parsed; one that does not parse is scanned
// as raw text and reported.
func (r *runner) scanRecords(path, id string) result {
	res := result{path: path}
	f, err := transcript.Open(path)
	if err != nil {
		res.warnf("%v", err)
		return res
	}
	defer f.Close()
	err = eachLine(r.env.Ctx, f, func(n int, msg string) { res.warnf("%s:%d: %s", path, n, msg) }, func(line []byte, n int, _ bool) error {
		ms, err := r.set.ScanJSON(line)
		if err != nil {
			res.warnf("%s:%d: not a JSON record, scanned as text: %s", path, n, cli.Mask(err.Error()))
		}
		for _, m := range ms {
			res.findings = append(res.findings, finding{SessionID: ptr(id), Path: ptr(path), Line: n, Field: ptr(m.Path), Kind: m.Kind})
		}
		return nil
	})
	if _, stop := ndjson.Stopped(err); err != nil && !stop {
		res.warnf("%s: %v", path, err)
	}
	return res
}

// scanStdin scans stdin records; with sessions, session records stand for
// all their files.
func (r *runner) scanStdin(s *scanner, sessions bool) error {
	w := &warner{r: r, name: "<stdin>"}
	defer w.done()
	err := eachLine(r.env.Ctx, r.env.Stdin, w.warn, func(line []byte, n int, _ bool) error {
		if sessions {
			if ref, ok := asSession(line); ok {
				if err := r.scanSession(s, ref.path, ref.id); err != nil {
					return ndjson.Stop(err)
				}
				return nil
			}
		}
		ms, err := r.set.ScanJSON(line)
		if err != nil {
			w.warn(n, "not a JSON record, scanned as text: "+cli.Mask(err.Error()))
		}
		if len(ms) == 0 {
			return nil
		}
		src := sourceOf(line, n)
		var res result
		for _, m := range ms {
			res.findings = append(res.findings, finding{SessionID: ptr(src.SessionID), Path: ptr(src.Path), Line: src.Line, Field: ptr(m.Path), Kind: m.Kind})
		}
		if err := s.add(func() result { return res }); err != nil {
			return ndjson.Stop(err)
		}
		return nil
	})
	if cause, ok := ndjson.Stopped(err); ok {
		return cause
	}
	if err != nil {
		r.fail("<stdin>: %v", err)
	}
	return nil
}

// source is where a stdin record comes from: its cc_source (cc-entries
// --with-source), else its line on stdin and its own session id.
type source struct {
	Path      string
	Line      int
	SessionID string
}

func sourceOf(line []byte, n int) source {
	rec, _ := records.Classify(line) // a line that is no object names nothing
	if c := rec.Source; c != nil && c.Line > 0 {
		return source{Path: c.Path, Line: c.Line, SessionID: c.SessionID}
	}
	id := rec.SessionID
	if strings.ContainsAny(id, "\n\r") {
		id = ""
	}
	return source{Line: n, SessionID: id}
}
