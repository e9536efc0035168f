package records

import (
	"bytes"
	"path/filepath"
	"strconv"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
	"github.com/ccpipe/ccpipe/lib/layout"
)

// Source is a cc-entries line's cc_source: the transcript the entry was
// read from, its line there, and the session and agent it belongs to.
// Every command that reads entries on stdin asks SourceOf (or Classify's
// Record.Source) for it: the one reader of the field.
type Source struct {
	Path      string
	Line      int
	SessionID string
	AgentID   string
	ToolUseID string
}

var sourceKey = []byte(`{"cc_source":`)

// SourceOf reads a line's cc_source: where cc-entries --with-source puts
// it, first, without scanning the rest of the line; anywhere else in the
// record by a scan of its members. ok is false when the line has none (or
// it is not an object). A member of an unexpected type gives no value.
func SourceOf(line []byte) (s Source, ok bool) {
	if bytes.HasPrefix(line, sourceKey) {
		c := jsonscan.New(line[len(sourceKey):])
		if raw, err := c.Raw(); err == nil {
			return SourceValue(raw)
		}
		return s, false
	}
	if !bytes.Contains(line, []byte(`"cc_source"`)) {
		return s, false
	}
	_ = jsonscan.Members(line, func(m *jsonscan.Member) error {
		if m.Name() == "cc_source" {
			s, ok = SourceValue(m.Value)
		}
		return nil
	})
	return s, ok
}

// SourceValue reads a cc_source value (the object itself); ok is false
// when it is not an object.
func SourceValue(v []byte) (s Source, ok bool) {
	err := jsonscan.Members(v, func(m *jsonscan.Member) error {
		switch m.Name() {
		case "path":
			s.Path = jsonscan.StringOf(m.Value)
		case "line":
			s.Line, _ = strconv.Atoi(string(m.Value))
		case "session_id":
			s.SessionID = jsonscan.StringOf(m.Value)
		case "agent_id":
			s.AgentID = jsonscan.StringOf(m.Value)
		case "tool_use_id":
			s.ToolUseID = jsonscan.StringOf(m.Value)
		}
		return nil
	})
	return s, err == nil
}

// Where names, in messages, the entry read on stdin line n that carries
// this cc_source: its transcript and line there when cc_source gives both
// (the place a user can open), else the stdin line, as cli.Env.SkipInput
// names it. A nil Source (no cc_source) is the stdin line.
func (s *Source) Where(n int) string {
	if s != nil && s.Path != "" && s.Line > 0 {
		return s.Path + ":" + strconv.Itoa(s.Line)
	}
	return "<stdin>:" + strconv.Itoa(n)
}

// SessionOfPath is the session a transcript path stands for when the
// record naming it gives no session id, the one rule of every command: the
// session that owns the file under a projects dir (layout.SessionOfPath:
// the session's own transcript, or anything in its session dir), else the
// session dir a subagents/ or tool-results/ file lies in, else the id the
// file is named after. "" only for "".
func SessionOfPath(path string) string {
	if path == "" {
		return ""
	}
	if id := layout.SessionOfPath(path); id != "" {
		return id
	}
	dir := filepath.Dir(path)
	if b := filepath.Base(dir); b == layout.SubagentsDir || b == layout.ToolResultsDir {
		return filepath.Base(filepath.Dir(dir))
	}
	return layout.SessionID(path)
}
