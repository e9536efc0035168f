// Package records tells what one stdin line of a ccpipe pipe is: a
// profile record, a session record, a transcript entry, a hook payload or
// a fact (anything else). Every command that reads records on stdin asks
// Classify, so that one line means the same thing to all of them.
package records

import (
	"errors"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// Kind is what a record is.
type Kind uint8

const (
	// Fact is any other JSON object: what cc-extract prints (each fact
	// carries the uuid of the transcript record it was read from, sums do
	// not), cc-send's receipts, cc-cassette's and cc-hook's records,
	// another tool's records.
	Fact Kind = iota
	// Profile is a cc-profiles record: a config_dir, and no field that
	// names a session.
	Profile
	// Session is a record that names a session: a transcript_path, a
	// socket_path or an active part (cc-sessions, cc-sessions --active,
	// cc-grep, cc-send's receipts), and none of a transcript entry's or a
	// fact's fields.
	Session
	// Entry is a transcript line: Claude Code's record (a "type" and its
	// camelCase envelope) or cc-entries output (cc_source first).
	Entry
	// Hook is a hook payload (hook_event_name, or cc-hook's parsed form
	// with event): it names its session by transcript_path and
	// session_id, as Claude Code gives them. A record with an event and a
	// session but no transcript_path (cc-hook backtest's decisions) is a
	// fact about a payload, not one.
	Hook
	// Swept is a cc-sessions --swept record: a session whose transcript is
	// gone, known only from the prompts history.jsonl kept (a history_path
	// and a session_id, no transcript_path).
	Swept
)

func (k Kind) String() string {
	switch k {
	case Profile:
		return "profile record"
	case Session:
		return "session record"
	case Entry:
		return "transcript entry"
	case Hook:
		return "hook payload"
	case Swept:
		return "swept session record"
	}
	return "fact"
}

// Record is what Classify found.
type Record struct {
	Kind Kind
	// TranscriptPath is the transcript the record names: a session
	// record's (or its active part's), a hook payload's, a cc-entries
	// line's cc_source.path, a fact's (cc-extract subagents names the
	// subagent's transcript). "" when none.
	TranscriptPath string
	// SessionID is session_id (or the active part's); a transcript
	// line's cc_source.session_id, else its sessionId, else its
	// session_id; "" when none (Session gives the path's session then).
	SessionID string
	// Source is a cc-entries line's cc_source (SourceOf); nil when none.
	Source *Source
	// AgentID is a transcript line's subagent: its cc_source's agent_id
	// when it has a cc_source, else its agentId; "" for a main
	// transcript's line.
	AgentID string

	// What a session record says of its session, for a command that picks
	// sessions by it (cc-grep): cwd, profile (or the active part's),
	// profiles, and the times of its activity, as written; "" or nil when
	// not given.
	Cwd, Profile                         string
	Profiles                             []string
	StartedAt, LastActivityAt, UpdatedAt string
}

// Session is the session the record names: its SessionID, else the
// session of its transcript path (SessionOfPath); "" when it names
// neither.
func (r Record) Session() string {
	if r.SessionID != "" {
		return r.SessionID
	}
	return SessionOfPath(r.TranscriptPath)
}

// SessionPath is the transcript a record stands for when a command reads
// sessions: any record's TranscriptPath except a transcript entry's (an
// entry is itself the input, not a pointer to it).
func (r Record) SessionPath() string {
	if r.Kind == Entry {
		return ""
	}
	return r.TranscriptPath
}

// ErrNotObject is returned for a line that is JSON but not an object.
var ErrNotObject = jsonscan.ErrNotObject

// Classify reads one line. The rules, in order: cc_source makes an entry
// (cc-entries --with-source); a "type" with a sessionId an entry (Claude
// Code's envelope is camelCase, and its lines may also carry a top-level
// session_id: 2.1.328 writes one on some attachment, user and assistant
// records); hook_event_name, or event with a session_id (cc-hook's parsed
// payload), a hook payload; a "type" without session_id,
// transcript_path or config_dir an entry (file-history-snapshot has no
// sessionId; a Blackbox cassette step or cc-cassette show record, which
// has a "type" and an "index", is a fact); a uuid or a "type" a fact
// (cc-extract's facts carry the uuid of the record they were read from,
// and name their session by session_id); a transcript_path, socket_path
// or an active part a session record (cc-send's receipts name the session
// they went to, so they are session records too); a config_dir a profile
// record; anything else a fact. Only a line that is not one JSON object
// is an error. A field of an unexpected type counts as present but gives
// no value.
func Classify(line []byte) (Record, error) {
	var r Record
	var f fields
	err := jsonscan.Members(line, func(m *jsonscan.Member) error {
		f.note(m)
		switch m.Name() {
		case "cc_source":
			if s, ok := SourceValue(m.Value); ok {
				r.Source = &s
				f.sourcePath, f.sourceSession = s.Path, s.SessionID
			}
		case "transcript_path":
			f.path = jsonscan.StringOf(m.Value)
		case "session_id":
			f.session = jsonscan.StringOf(m.Value)
		case "sessionId":
			f.camelSession = jsonscan.StringOf(m.Value)
		case "agentId":
			f.camelAgent = jsonscan.StringOf(m.Value)
		case "cwd":
			r.Cwd = jsonscan.StringOf(m.Value)
		case "profile":
			r.Profile = jsonscan.StringOf(m.Value)
		case "profiles":
			r.Profiles = strs(m.Value)
		case "started_at":
			r.StartedAt = jsonscan.StringOf(m.Value)
		case "last_activity_at":
			r.LastActivityAt = jsonscan.StringOf(m.Value)
		case "updated_at":
			r.UpdatedAt = jsonscan.StringOf(m.Value)
		case "active":
			if len(m.Value) > 0 && m.Value[0] == '{' {
				_ = jsonscan.Members(m.Value, func(a *jsonscan.Member) error {
					switch a.Name() {
					case "transcript_path":
						f.activePath = jsonscan.StringOf(a.Value)
					case "session_id":
						f.activeSession = jsonscan.StringOf(a.Value)
					case "profile":
						f.activeProfile = jsonscan.StringOf(a.Value)
					}
					return nil
				})
			}
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, jsonscan.ErrNotObject) {
			return r, ErrNotObject
		}
		return r, err
	}
	r.TranscriptPath = first(f.path, f.activePath, f.sourcePath)
	r.Profile = first(r.Profile, f.activeProfile)
	r.AgentID = f.camelAgent
	if r.Source != nil {
		r.AgentID = r.Source.AgentID
	}
	r.Kind = f.kind()
	if r.Kind == Entry {
		// An entry's session is its transcript's, not a session_id it
		// happens to carry.
		r.SessionID = first(f.sourceSession, f.camelSession, f.session)
	} else {
		r.SessionID = first(f.session, f.activeSession, f.sourceSession, f.camelSession)
	}
	return r, nil
}

// WalkEntry tells whether line is a transcript entry by Classify's rule
// while fn reads its top-level members, in order, until fn returns false.
// The walk stops there once the line is known to be an entry (a cc_source,
// or a "type" and a sessionId: no later member changes that), so a reader
// that wants a member near a real entry's start does not pay for the rest
// of a long line; anything else is walked to its end. kind is Classify's
// Kind of the line (Entry when the walk stopped early); typed tells
// whether it has a top-level "type". err is Classify's error of a line that
// is not one JSON object (fn may have read members before it).
func WalkEntry(line []byte, fn func(m *jsonscan.Member) (more bool)) (kind Kind, typed bool, err error) {
	var k keys
	more := true
	err = jsonscan.Members(line, func(m *jsonscan.Member) error {
		k.note(m)
		if more {
			more = fn(m)
		}
		if !more && k.entryFirst() {
			return errEntry
		}
		return nil
	})
	switch {
	case err == errEntry:
		return Entry, k.typ, nil
	case errors.Is(err, jsonscan.ErrNotObject):
		return Fact, false, ErrNotObject
	case err != nil:
		return Fact, false, err
	}
	return k.kind(), k.typ, nil
}

// errEntry stops WalkEntry's walk at what makes the line an entry.
var errEntry = errors.New("an entry")

// keys is which of the members that decide a record's Kind it has at its
// top level.
type keys struct {
	source, hook, event, typ, step, uuid, hasPath, socket, hasSession, hasCamelSession, configDir, active, history bool
}

// note notes m's key (decoded, when written with escapes). A key is
// compared as its bytes, not a string made of them: WalkEntry notes every
// member of every line on stdin.
func (k *keys) note(m *jsonscan.Member) {
	key := m.Key
	if m.Esc {
		key = []byte(m.Name())
	}
	switch string(key) {
	case "cc_source":
		k.source = true
	case "hook_event_name":
		k.hook = true
	case "event":
		k.event = true
	case "type":
		k.typ = true
	case "prevHash", "index":
		k.step = true
	case "uuid":
		k.uuid = true
	case "transcript_path":
		k.hasPath = true
	case "socket_path":
		k.socket = true
	case "history_path":
		k.history = true
	case "session_id":
		k.hasSession = true
	case "sessionId":
		k.hasCamelSession = true
	case "config_dir":
		k.configDir = true
	case "active":
		k.active = k.active || len(m.Value) > 0 && m.Value[0] == '{'
	}
}

// entryFirst is Classify's first rule: a cc_source, or a "type" with a
// sessionId, makes an entry whatever else the record has.
func (k *keys) entryFirst() bool { return k.source || k.typ && k.hasCamelSession }

// kind is Classify's rule of the keys noted.
func (k *keys) kind() Kind {
	switch {
	case k.entryFirst():
		return Entry
	case k.hook, k.event && k.hasSession && k.hasPath:
		return Hook
	case k.history && k.hasSession && !k.hasPath && !k.typ && !k.uuid:
		return Swept
	case k.typ && !k.step && !k.hasPath && !k.hasSession && !k.configDir:
		return Entry
	case k.uuid || k.typ:
		return Fact
	case k.hasPath || k.socket || k.active:
		return Session
	case k.configDir:
		return Profile
	}
	return Fact
}

// fields is what Classify notes of a record's top-level members.
type fields struct {
	keys

	path, activePath, sourcePath                        string
	session, activeSession, sourceSession, camelSession string
	activeProfile, camelAgent                           string
}

// strs is a JSON array's string elements; nil for any other value (an
// element of another type is left out).
func strs(v []byte) []string {
	c := jsonscan.New(v)
	if c.Peek() != '[' || c.EnterArray() != nil {
		return nil
	}
	var out []string
	for {
		ok, err := c.Elem()
		if err != nil || !ok {
			return out
		}
		if c.Peek() != '"' {
			if c.Skip() != nil {
				return out
			}
			continue
		}
		s, err := c.String()
		if err != nil {
			return out
		}
		out = append(out, string(s))
	}
}

func first(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
