package sessions

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/jsonscan"
	"github.com/ccpipe/ccpipe/lib/ndjson"
)

// Session is one session: a transcript, a running process, or both. Its
// JSON form is the cc-sessions record. Unknown values are null in JSON.
type Session struct {
	SessionID      string   `json:"session_id"`
	TranscriptPath string   `json:"transcript_path"`
	ProjectDir     string   `json:"project_dir"`
	Profiles       []string `json:"profiles"`
	// Cwd is the launch dir, from the transcript's first records.
	Cwd string `json:"cwd"`
	// Title is the newest user-set title, else the newest generated one.
	Title string `json:"title"`
	// FirstPrompt is the first prose prompt a human typed.
	FirstPrompt    string    `json:"first_prompt"`
	StartedAt      time.Time `json:"started_at"`
	LastActivityAt time.Time `json:"last_activity_at"`
	SizeBytes      int64     `json:"size_bytes"`
	Compressed     bool      `json:"compressed"`
	HasSubagents   bool      `json:"has_subagents"`
	// Source is SourceLive or SourceArchive: which copy of the session is
	// read (a session both live and archived is listed once).
	Source string `json:"source"`
	// Active is the running process of this session, nil when none runs.
	Active *Active `json:"active"`

	// BytesRead is how much of the transcript listing read (for the
	// benchmark; not part of the record).
	BytesRead int64 `json:"-"`
	// Mtime is the transcript file's modification time.
	Mtime time.Time `json:"-"`
	// noDir: the project dir listing showed no <id>/ dir, so there is no
	// custom-title.json or subagents/ to look for.
	noDir bool
	// noEntry: the project dir listing showed nothing named <id> at all
	// (not even a symlink); stamp is the transcript's stat by the listing
	// (listed: set).
	noEntry bool
	stamp   cache.Stamp
	listed  bool
}

// Listed is what the file listing (Files) saw of the session: the stamp
// of its transcript's stat (symlinks followed), and whether the project
// dir held nothing named as its session dir. ok is false for a session
// not listed so (from a registry).
func (s Session) Listed() (st cache.Stamp, noSessionDir, ok bool) {
	return s.stamp, s.noEntry, s.listed
}

// MarshalJSON writes the cc-sessions record: empty strings and zero times
// become null, times are RFC 3339 UTC with milliseconds.
func (s Session) MarshalJSON() ([]byte, error) {
	return s.AppendJSON(make([]byte, 0, 512))
}

// AppendJSON appends MarshalJSON's record to b (a writer of many records
// appends them to one buffer).
func (s Session) AppendJSON(b []byte) ([]byte, error) {
	if r, ok := s.appendRecord(b); ok {
		return r, nil
	}
	r, err := s.marshalSlow()
	return append(b, r...), err
}

// JSONSizeHint is about the size of the record's JSON, for a buffer of
// several (the strings' lengths and the fixed part's).
func (s Session) JSONSizeHint() int {
	n := 300 + len(s.SessionID) + len(s.TranscriptPath) + len(s.ProjectDir) + len(s.Cwd) + len(s.Title) + len(s.FirstPrompt)
	for _, p := range s.Profiles {
		n += len(p) + 3
	}
	return n + n/16 // escapes
}

// appendRecord is marshalSlow's bytes written by hand (a warm cc-grep
// prints a record per matching session: encoding/json was 7% of one
// matching 1001). ok is false for what only encoding/json writes here:
// a running session (Active), a string that is not UTF-8 or holds U+2028
// or U+2029 (encoding/json's own escapes); TestMarshalFastIsSlow keeps
// the two equal.
func (s Session) appendRecord(b []byte) ([]byte, bool) {
	if s.Active != nil {
		return nil, false
	}
	for _, v := range [...]string{s.SessionID, s.TranscriptPath, s.ProjectDir, s.Cwd, s.Title, s.FirstPrompt, s.Source} {
		if !plainJSON(v) {
			return nil, false
		}
	}
	for _, v := range s.Profiles {
		if !plainJSON(v) {
			return nil, false
		}
	}
	str := func(b []byte, key, v string) []byte {
		b = append(b, key...)
		if v == "" {
			return append(b, "null"...)
		}
		return jsonscan.AppendString(b, v)
	}
	tm := func(b []byte, key string, t time.Time) []byte {
		b = append(b, key...)
		if t.IsZero() {
			return append(b, "null"...)
		}
		b = append(b, '"')
		b = t.UTC().AppendFormat(b, TimeFormat)
		return append(b, '"')
	}
	b = str(b, `{"session_id":`, s.SessionID)
	b = str(b, `,"transcript_path":`, s.TranscriptPath)
	b = str(b, `,"project_dir":`, s.ProjectDir)
	b = append(b, `,"profiles":[`...)
	for i, p := range s.Profiles {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonscan.AppendString(b, p)
	}
	b = append(b, ']')
	b = str(b, `,"cwd":`, s.Cwd)
	b = str(b, `,"title":`, s.Title)
	b = str(b, `,"first_prompt":`, s.FirstPrompt)
	b = tm(b, `,"started_at":`, s.StartedAt)
	b = tm(b, `,"last_activity_at":`, s.LastActivityAt)
	b = append(b, `,"size_bytes":`...)
	b = strconv.AppendInt(b, s.SizeBytes, 10)
	b = append(b, `,"compressed":`...)
	b = strconv.AppendBool(b, s.Compressed)
	b = append(b, `,"has_subagents":`...)
	b = strconv.AppendBool(b, s.HasSubagents)
	b = str(b, `,"source":`, s.Source)
	b = append(b, `,"active":null}`...)
	return b, true
}

// plainJSON: encoding/json (HTML escaping off) writes v as
// jsonscan.AppendString does.
func plainJSON(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] >= utf8.RuneSelf {
			return utf8.ValidString(v[i:]) && !strings.Contains(v[i:], "\u2028") && !strings.Contains(v[i:], "\u2029")
		}
	}
	return true
}

// marshalSlow is the record through encoding/json (ndjson.Marshal).
func (s Session) marshalSlow() ([]byte, error) {
	profiles := s.Profiles
	if profiles == nil {
		profiles = []string{}
	}
	return ndjson.Marshal(struct {
		SessionID      *string  `json:"session_id"`
		TranscriptPath *string  `json:"transcript_path"`
		ProjectDir     *string  `json:"project_dir"`
		Profiles       []string `json:"profiles"`
		Cwd            *string  `json:"cwd"`
		Title          *string  `json:"title"`
		FirstPrompt    *string  `json:"first_prompt"`
		StartedAt      *string  `json:"started_at"`
		LastActivityAt *string  `json:"last_activity_at"`
		SizeBytes      int64    `json:"size_bytes"`
		Compressed     bool     `json:"compressed"`
		HasSubagents   bool     `json:"has_subagents"`
		Source         *string  `json:"source"`
		Active         *Active  `json:"active"`
	}{
		nz(s.SessionID), nz(s.TranscriptPath), nz(s.ProjectDir), profiles, nz(s.Cwd), nz(s.Title),
		nz(s.FirstPrompt), ts(s.StartedAt), ts(s.LastActivityAt), s.SizeBytes, s.Compressed,
		s.HasSubagents, nz(s.Source), s.Active,
	})
}

// Active is a running session as its registry record describes it: the
// cc-sessions --active record.
type Active struct {
	Address    string `json:"address"` // <profile>/<name>
	Profile    string `json:"profile"`
	Pid        int    `json:"pid"`
	SessionID  string `json:"session_id"`
	Name       string `json:"name"`
	NameSource string `json:"name_source"`
	Status     string `json:"status"`
	WaitingFor string `json:"waiting_for"`
	Cwd        string `json:"cwd"`
	Kind       string `json:"kind"`
	Entrypoint string `json:"entrypoint"`
	Version    string `json:"version"`
	Tmux       string `json:"tmux"`
	SocketPath string `json:"socket_path"`
	// ScratchpadDir is where the session's scratchpad is (or will be);
	// ScratchpadDirInferred is true when the temp dir had to be guessed
	// from this process's environment instead of the session's.
	ScratchpadDir         string          `json:"scratchpad_dir"`
	ScratchpadDirInferred bool            `json:"scratchpad_dir_inferred"`
	TranscriptPath        string          `json:"transcript_path"`
	StartedAt             time.Time       `json:"started_at"`
	UpdatedAt             time.Time       `json:"updated_at"`
	Liveness              string          `json:"liveness"` // alive | unknown
	Compatibility         Compatibility   `json:"compatibility"`
	RecordPath            string          `json:"record_path"`
	Raw                   json.RawMessage `json:"raw"`
}

// MarshalJSON writes the --active record with nulls for unknown values.
func (a Active) MarshalJSON() ([]byte, error) {
	raw := a.Raw
	if len(raw) == 0 {
		raw = json.RawMessage("null")
	}
	return ndjson.Marshal(struct {
		Address               *string         `json:"address"`
		Profile               *string         `json:"profile"`
		Pid                   int             `json:"pid"`
		SessionID             *string         `json:"session_id"`
		Name                  *string         `json:"name"`
		NameSource            *string         `json:"name_source"`
		Status                *string         `json:"status"`
		WaitingFor            *string         `json:"waiting_for"`
		Cwd                   *string         `json:"cwd"`
		Kind                  *string         `json:"kind"`
		Entrypoint            *string         `json:"entrypoint"`
		Version               *string         `json:"version"`
		Tmux                  *string         `json:"tmux"`
		SocketPath            *string         `json:"socket_path"`
		ScratchpadDir         *string         `json:"scratchpad_dir"`
		ScratchpadDirInferred bool            `json:"scratchpad_dir_inferred"`
		TranscriptPath        *string         `json:"transcript_path"`
		StartedAt             *string         `json:"started_at"`
		UpdatedAt             *string         `json:"updated_at"`
		Liveness              string          `json:"liveness"`
		Compatibility         Compatibility   `json:"compatibility"`
		RecordPath            *string         `json:"record_path"`
		Raw                   json.RawMessage `json:"raw"`
	}{
		nz(a.Address), nz(a.Profile), a.Pid, nz(a.SessionID), nz(a.Name), nz(a.NameSource), nz(a.Status),
		nz(a.WaitingFor), nz(a.Cwd), nz(a.Kind), nz(a.Entrypoint), nz(a.Version), nz(a.Tmux),
		nz(a.SocketPath), nz(a.ScratchpadDir), a.ScratchpadDirInferred, nz(a.TranscriptPath),
		ts(a.StartedAt), ts(a.UpdatedAt), a.Liveness, a.Compatibility, nz(a.RecordPath), raw,
	})
}

// Compatibility says, per feature, whether a running session declares
// what this version of ccpipe needs; Reasons explain every "no".
type Compatibility struct {
	Messaging  Feature `json:"messaging"`
	Scratchpad Feature `json:"scratchpad"`
	Liveness   Feature `json:"liveness"`
}

// Feature is one compatibility verdict.
type Feature struct {
	OK      bool     `json:"ok"`
	Reasons []string `json:"reasons"`
}

func nz(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// TimeFormat is how every time in a record is written: RFC 3339, UTC,
// milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

func ts(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(TimeFormat)
	return &s
}

// Describe is one line naming the session among others (the candidates
// of an ambiguous Find): address and pid when it runs, id, launch dir,
// title or the start of the first prompt.
func (s Session) Describe() string {
	var parts []string
	if a := s.Active; a != nil {
		if a.Address != "" {
			parts = append(parts, a.Address)
		}
		parts = append(parts, "pid:"+strconv.Itoa(a.Pid))
	}
	parts = append(parts, s.SessionID)
	if s.Cwd != "" {
		parts = append(parts, s.Cwd)
	}
	if t := s.Title; t != "" {
		parts = append(parts, strconv.Quote(t))
	} else if p := s.FirstPrompt; p != "" {
		if r := []rune(p); len(r) > 60 {
			p = string(r[:60]) + "…"
		}
		parts = append(parts, strconv.Quote(p))
	}
	return strings.Join(parts, "  ")
}

// WrittenBefore reports whether the transcript was last written before t
// (a zero t or an unknown mtime: no), so that it holds no record stamped
// at or after t and a time window starting at t need not open it. The
// one rule behind every --since prune: a record's timestamp is the time
// of its event, and the write that put it in the file came after, so
// the file's mtime is at least the newest timestamp in it. Archive
// copies (cc-entries --archive, .gz, .zst) carry the time they were
// copied, later still. Only an mtime set back by hand (touch -d) breaks
// it; touch the file again to make it count.
func (s Session) WrittenBefore(t time.Time) bool {
	return !t.IsZero() && !s.Mtime.IsZero() && s.Mtime.Before(t)
}
