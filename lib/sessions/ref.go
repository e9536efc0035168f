package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ccpipe/ccpipe/lib/records"
)

// Ref is what a downstream command needs from any upstream record: a
// cc-sessions record (or its active part), a cc-profiles record, a
// cc-entries line with cc_source, a hook payload, a registry record or a
// raw transcript line. Fields the record does not carry are empty.
type Ref struct {
	SessionID      string
	TranscriptPath string
	SocketPath     string
	ConfigDir      string
	ProjectsDir    string
	Cwd            string
	Pid            int
	Name           string
	Address        string
	Profile        string
	// Active is true when the record describes a running session (a
	// --active record, or a session record with a non-null active).
	Active bool

	// What a cc-sessions record says about the running session (from its
	// active part when it has one), for a sender to decide before
	// connecting.
	Liveness     string   // alive, unknown or dead; "" when not given
	RecordPath   string   // the registry record file
	PeerProtocol int      // raw.peerProtocol: 0 when absent, -1 when not a number
	Messaging    *Feature // compatibility.messaging; nil when not given
}

// ErrNoRef means the record carries nothing a session consumer can use.
var ErrNoRef = errors.New("record has no transcript_path, session_id, socket_path or config_dir")

// refRecord is the union of the shapes FromRecord accepts.
type refRecord struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	SocketPath     string          `json:"socket_path"`
	ConfigDir      string          `json:"config_dir"`
	ProjectsDir    string          `json:"projects_dir"`
	Cwd            string          `json:"cwd"`
	Pid            json.Number     `json:"pid"`
	Name           string          `json:"name"`
	Address        string          `json:"address"`
	Profile        string          `json:"profile"`
	Active         *refRecord      `json:"active"`
	Source         *records.Source `json:"-"` // cc_source (records.SourceValue)
	CamelSession   string          `json:"sessionId"`
	CamelSocket    string          `json:"messagingSocketPath"`
	Liveness       string          `json:"liveness"`
	RecordPath     string          `json:"record_path"`
	Compatibility  *struct {
		Messaging *Feature `json:"messaging"`
	} `json:"compatibility"`
	Raw json.RawMessage `json:"raw"`
}

// FromRecord reads a Ref from one JSON record. Fields of an unexpected
// type are ignored rather than failing the record; only a line that is not
// a JSON object, or one carrying none of the fields, is an error.
func FromRecord(line []byte) (Ref, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil || m == nil {
		return Ref{}, errors.New("record is not a JSON object")
	}
	var r refRecord
	decodeLoose(m, &r)
	ref := Ref{
		SessionID: first(r.SessionID, r.CamelSession), TranscriptPath: r.TranscriptPath,
		SocketPath: first(r.SocketPath, r.CamelSocket), ConfigDir: r.ConfigDir, ProjectsDir: r.ProjectsDir,
		Cwd: r.Cwd, Name: r.Name, Address: r.Address, Profile: r.Profile,
		Active: r.Liveness != "" || r.CamelSocket != "",
	}
	if n, err := r.Pid.Int64(); err == nil {
		ref.Pid = int(n)
	}
	// The running session's state comes from the active part when there
	// is one, else from the record itself (an --active record).
	state := &r
	if r.Active != nil {
		state = r.Active
	}
	ref.Liveness, ref.RecordPath = state.Liveness, state.RecordPath
	if len(state.Raw) > 0 && string(state.Raw) != "null" {
		ref.PeerProtocol = peerProtocol(state.Raw)
	}
	if c := state.Compatibility; c != nil {
		ref.Messaging = c.Messaging
	}
	if a := r.Active; a != nil {
		ref.Active = true
		ref.SocketPath = first(ref.SocketPath, a.SocketPath)
		ref.SessionID = first(ref.SessionID, a.SessionID)
		ref.TranscriptPath = first(ref.TranscriptPath, a.TranscriptPath)
		ref.Name = first(ref.Name, a.Name)
		ref.Address = first(ref.Address, a.Address)
		ref.Profile = first(ref.Profile, a.Profile)
		if n, err := a.Pid.Int64(); err == nil && ref.Pid == 0 {
			ref.Pid = int(n)
		}
	}
	if s := r.Source; s != nil {
		ref.TranscriptPath = first(ref.TranscriptPath, s.Path)
		ref.SessionID = first(ref.SessionID, s.SessionID)
	}
	if ref.SessionID == "" && ref.TranscriptPath != "" {
		ref.SessionID = records.SessionOfPath(ref.TranscriptPath)
	}
	if ref.SessionID == "" && ref.TranscriptPath == "" && ref.SocketPath == "" && ref.ConfigDir == "" {
		return ref, ErrNoRef
	}
	return ref, nil
}

// decodeLoose fills r field by field, so that one field of a surprising
// type (a number where a string was expected) loses only that field.
func decodeLoose(m map[string]json.RawMessage, r *refRecord) {
	str := func(key string, dst *string) {
		if raw, ok := m[key]; ok {
			_ = json.Unmarshal(raw, dst)
		}
	}
	str("session_id", &r.SessionID)
	str("transcript_path", &r.TranscriptPath)
	str("socket_path", &r.SocketPath)
	str("config_dir", &r.ConfigDir)
	str("projects_dir", &r.ProjectsDir)
	str("cwd", &r.Cwd)
	str("name", &r.Name)
	str("address", &r.Address)
	str("profile", &r.Profile)
	str("sessionId", &r.CamelSession)
	str("messagingSocketPath", &r.CamelSocket)
	str("liveness", &r.Liveness)
	str("record_path", &r.RecordPath)
	if raw, ok := m["compatibility"]; ok {
		_ = json.Unmarshal(raw, &r.Compatibility)
	}
	if raw, ok := m["raw"]; ok {
		r.Raw = raw
	}
	if raw, ok := m["pid"]; ok {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var n json.Number
		if dec.Decode(&n) == nil {
			r.Pid = n
		}
	}
	if raw, ok := m["active"]; ok && string(raw) != "null" {
		var am map[string]json.RawMessage
		if json.Unmarshal(raw, &am) == nil && am != nil {
			var a refRecord
			decodeLoose(am, &a)
			r.Active = &a
		}
	}
	if raw, ok := m["cc_source"]; ok {
		if s, ok := records.SourceValue(raw); ok {
			r.Source = &s
		}
	}
}

// PeerProtocol is the peerProtocol the session's registry record
// declares: 0 when absent, -1 when not a number (not a protocol anyone
// speaks).
func (a *Active) PeerProtocol() int { return peerProtocol(a.Raw) }

func peerProtocol(raw json.RawMessage) int {
	var r struct {
		PeerProtocol json.Number `json:"peerProtocol"`
	}
	if json.Unmarshal(raw, &r) != nil || r.PeerProtocol == "" {
		return 0
	}
	n, err := r.PeerProtocol.Int64()
	if err != nil {
		return -1
	}
	return int(n)
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// String names the session a Ref points at, for messages.
func (r Ref) String() string {
	switch {
	case r.Address != "":
		return r.Address
	case r.SessionID != "":
		return r.SessionID
	case r.TranscriptPath != "":
		return r.TranscriptPath
	case r.SocketPath != "":
		return r.SocketPath
	}
	return fmt.Sprintf("config dir %s", r.ConfigDir)
}
