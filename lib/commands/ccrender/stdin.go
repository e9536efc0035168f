package ccrender

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/records"
	"github.com/ccpipe/ccpipe/lib/render"
	"github.com/ccpipe/ccpipe/lib/sessions"
)

// readStdin renders each session record as it comes. Entries are kept in
// temporary files, one per session and subagent, and rendered at the end
// of the input: a subagent's entries come after its parent's, and the page
// shows them inside the parent's Agent call.
func (o *options) readStdin(env *cli.Env, add func(render.Session) error) error {
	sp := &spool{}
	defer sp.remove()
	used := 0
	_, err := env.EachInput(func(line []byte, n int) error {
		kind, err := records.Classify(line)
		if err != nil {
			env.SkipInput(n, "%v, line skipped", err)
			return nil
		}
		if kind.Kind != records.Entry {
			if kind.SessionPath() == "" {
				env.SkipInput(n, "neither a transcript entry nor a session record (a %s), skipped", kind.Kind)
				return nil
			}
			used++
			return add(o.sessionOf(kind.SessionPath(), kind.Session()))
		}
		used++
		return sp.add(&kind, line, n)
	})
	if err != nil {
		return err
	}
	if used == 0 && env.SkippedInput() > 0 {
		// Only bad lines: say so rather than render nothing and succeed.
		return &cli.ExitError{Code: cli.ExitFail, Err: errors.New("<stdin>: no transcript entry or session record read")}
	}
	if err := sp.flush(); err != nil {
		return err
	}
	for _, s := range sp.sessions {
		if err := add(s.session()); err != nil {
			return err
		}
	}
	return nil
}

// spool holds stdin entries on disk until the input ends.
type spool struct {
	dir      string
	sessions []*spooled
	byID     map[string]*spooled
	files    int
	last     *spooled // the session of the last entry with an id
}

// spooled is one session's entries: the main ones and each subagent's.
type spooled struct {
	id     string
	source string // the main transcript the entries came from (cc_source.path)
	main   *spoolFile
	agents map[string]*spoolFile
	tools  map[string]string // Agent tool_use id -> agent id
	order  []string
}

type spoolFile struct {
	path string
	f    *os.File
	w    *bufio.Writer
	// lines is how many lines were written; runs say where they came
	// from, for warnings (Session.Where).
	lines int
	runs  []origins
}

// origins is where a run of spooled lines came from: the one numbered
// first (from 1) and those after it, one to one, are stdin lines from
// stdin on and, when the entries' cc_source gave it, lines of transcript
// src from line on. Runs, not a number per line: cc-entries writes a
// session's lines one after the other, so a spool file has few.
type origins struct {
	first, stdin int
	src          string
	line         int
}

// note records that the line just written came from stdin line n, with
// cc_source c (nil: none).
func (f *spoolFile) note(n int, c *records.Source) {
	f.lines++
	o := origins{first: f.lines, stdin: n}
	if c != nil && c.Path != "" && c.Line > 0 {
		o.src, o.line = c.Path, c.Line
	}
	if k := len(f.runs); k > 0 {
		last, d := f.runs[k-1], f.lines-f.runs[k-1].first
		if last.stdin+d == n && last.src == o.src && (o.src == "" || last.line+d == o.line) {
			return
		}
	}
	f.runs = append(f.runs, o)
}

// where names line n of the file by its origin (records.Source.Where);
// n == 0 names the file: the transcript all its lines came from, else
// <stdin>.
func (f *spoolFile) where(n int) string {
	if n == 0 {
		if len(f.runs) == 0 || f.runs[0].src == "" {
			return "<stdin>"
		}
		for _, o := range f.runs[1:] {
			if o.src != f.runs[0].src {
				return "<stdin>"
			}
		}
		return f.runs[0].src
	}
	i := sort.Search(len(f.runs), func(i int) bool { return f.runs[i].first > n }) - 1
	if i < 0 {
		return "<stdin>"
	}
	o, d := f.runs[i], n-f.runs[i].first
	c := &records.Source{Path: o.src}
	if o.line > 0 {
		c.Line = o.line + d
	}
	return c.Where(o.stdin + d)
}

func (sp *spool) file(name string) (*spoolFile, error) {
	if sp.dir == "" {
		d, err := os.MkdirTemp("", "cc-render-")
		if err != nil {
			return nil, err
		}
		sp.dir = d
	}
	sp.files++
	p := filepath.Join(sp.dir, fmt.Sprintf("%d-%s.jsonl", sp.files, name))
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	return &spoolFile{path: p, f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// add spools an entry by the session and agent Classify read of it (a
// field of another type than Claude Code writes gives none: the entry is
// kept under the session of the entries around it).
func (sp *spool) add(r *records.Record, line []byte, n int) error {
	sid, aid, tool, src := r.SessionID, r.AgentID, "", ""
	if c := r.Source; c != nil {
		tool, src = c.ToolUseID, c.Path
	}
	if sp.byID == nil {
		sp.byID = map[string]*spooled{}
	}
	s := sp.byID[sid]
	switch {
	case sid == "" && sp.last != nil:
		// Records without a session id (metadata) belong with those
		// around them.
		s = sp.last
	case s == nil && sp.byID[""] != nil:
		s = sp.byID[""]
		delete(sp.byID, "")
		s.id = sid
		sp.byID[sid] = s
	}
	if s == nil {
		s = &spooled{id: sid, agents: map[string]*spoolFile{}, tools: map[string]string{}}
		sp.byID[sid] = s
		sp.sessions = append(sp.sessions, s)
	}
	if sid != "" {
		sp.last = s
	}
	var f *spoolFile
	var err error
	switch {
	case aid == "":
		if s.main == nil {
			s.main, err = sp.file("main")
		}
		if s.source == "" {
			s.source = src
		}
		f = s.main
	default:
		f = s.agents[aid]
		if f == nil {
			if f, err = sp.file("agent"); err == nil {
				s.agents[aid] = f
				s.order = append(s.order, aid)
			}
		}
		if tool != "" {
			s.tools[tool] = aid
		}
	}
	if err != nil {
		return err
	}
	f.w.Write(line)
	f.note(n, r.Source)
	return f.w.WriteByte('\n')
}

// flush closes the spool files for reading.
func (sp *spool) flush() error {
	for _, s := range sp.sessions {
		files := []*spoolFile{s.main}
		for _, a := range s.order {
			files = append(files, s.agents[a])
		}
		for _, f := range files {
			if f == nil {
				continue
			}
			if err := f.w.Flush(); err != nil {
				return err
			}
			if err := f.f.Close(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *spooled) session() render.Session {
	rs := render.Session{ID: s.id, Agents: map[string]string{}}
	if s.main != nil {
		rs.Path = s.main.path
		// The entries' own title records (cc-entries passes them, not
		// with --branch), else their transcript's title.
		rs.Title, _ = sessions.Title(rs.Path)
		if rs.Title == "" && s.source != "" {
			rs.Title, _ = sessions.Title(s.source)
		}
	}
	for aid, f := range s.agents {
		rs.Agents[aid] = f.path
	}
	for tool, aid := range s.tools {
		rs.Agents[tool] = s.agents[aid].path
	}
	rs.Where = s.where
	return rs
}

// where names line n of one of the session's spool files, or the file
// for n == 0, by where its lines came from (spoolFile.where).
func (s *spooled) where(path string, n int) string {
	f := s.main
	if f == nil || f.path != path {
		f = nil
		for _, a := range s.agents {
			if a.path == path {
				f = a
			}
		}
	}
	if f == nil {
		return "<stdin>"
	}
	return f.where(n)
}

func (sp *spool) remove() {
	if sp.dir != "" {
		os.RemoveAll(sp.dir)
	}
}
