package ccrender

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
		return sp.add(&kind, line)
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
func (sp *spool) add(r *records.Record, line []byte) error {
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
	return rs
}

func (sp *spool) remove() {
	if sp.dir != "" {
		os.RemoveAll(sp.dir)
	}
}
