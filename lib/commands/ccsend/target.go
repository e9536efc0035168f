package ccsend

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/jsonscan"
	"github.com/ccpipe/ccpipe/lib/peer"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/registry"
	"github.com/ccpipe/ccpipe/lib/sessions"
)

// target is one session to send to, with what the output names it by.
type target struct {
	peer.Target
	address string // <profile>/<name>, or ""
	// keyProblem is why the key file could not be read (other than not
	// existing); the message then goes without the auth line.
	keyProblem error
}

// who names the target in error lines.
func (t *target) who() string {
	switch {
	case t.address != "":
		return t.address
	case t.SessionID != "":
		return t.SessionID
	}
	return t.SocketPath
}

// named prefixes an error line with the target's name, unless the socket
// path is all the target has for a name and the error names it already.
func (t *target) named(err error) error {
	var se *peer.SendError
	if t.address == "" && t.SessionID == "" && errors.As(err, &se) && se.Path == t.SocketPath {
		return err
	}
	return fmt.Errorf("%s: %w", t.who(), err)
}

// resolve finds the one target of TARGET or --current.
func (o *options) resolve(env *cli.Env, args []string, profs []profiles.Profile) (*target, error) {
	var s sessions.Session
	var err error
	query := ""
	if o.current {
		s, err = sessions.Current(env.Ctx, profs, sessions.CurrentOptions{
			FindOptions: sessions.FindOptions{Host: o.deps.Host, Getenv: o.deps.Getenv},
			Getenv:      o.deps.Getenv, Pid: o.deps.Pid,
		})
	} else {
		query = args[0]
		s, err = sessions.Find(env.Ctx, query, profs, sessions.FindOptions{Host: o.deps.Host, Getenv: o.deps.Getenv})
	}
	if err != nil {
		return nil, describeErr(env, query, err)
	}
	a := s.Active
	if a == nil {
		return nil, fmt.Errorf("%s: %w (no registry record; its transcript is %s)", s.SessionID, peer.ErrNotRunning, s.TranscriptPath)
	}
	t := &target{
		Target:  peer.Target{SocketPath: a.SocketPath, SessionID: a.SessionID, Pid: a.Pid, PeerProtocol: protocolOf(a.Raw)},
		address: a.Address,
	}
	if !a.Compatibility.Messaging.OK {
		return nil, fmt.Errorf("%s: %w", t.who(), &peer.NotAlignedError{Reasons: a.Compatibility.Messaging.Reasons})
	}
	var dirs []string
	if a.RecordPath != "" {
		dirs = append(dirs, filepath.Dir(a.RecordPath))
	}
	t.readKey(dirs)
	return t, nil
}

// protocolOf reads peerProtocol from a raw registry record (0: absent).
func protocolOf(raw json.RawMessage) int {
	var r struct {
		PeerProtocol json.Number `json:"peerProtocol"`
	}
	if json.Unmarshal(raw, &r) != nil || r.PeerProtocol == "" {
		return 0
	}
	n, err := r.PeerProtocol.Int64()
	if err != nil {
		return -1 // present but not a number: not a protocol we speak
	}
	return int(n)
}

// recordExtras are the fields of a cc-sessions record (a session record
// with "active", or an --active record) that sessions.Ref does not carry.
type recordExtras struct {
	Liveness      string `json:"liveness"`
	RecordPath    string `json:"record_path"`
	Compatibility *struct {
		Messaging *struct {
			OK      bool     `json:"ok"`
			Reasons []string `json:"reasons"`
		} `json:"messaging"`
	} `json:"compatibility"`
	Raw    json.RawMessage `json:"raw"`
	Active json.RawMessage `json:"active"`
}

// extras decodes recordExtras from the record or its "active" part,
// ignoring fields of unexpected types.
func extras(line []byte) recordExtras {
	m := map[string]json.RawMessage{}
	if jsonscan.Members(line, func(mb *jsonscan.Member) error {
		switch k := mb.Name(); k {
		case "liveness", "record_path", "compatibility", "raw", "active":
			m[k] = mb.Value
		}
		return nil
	}) != nil {
		return recordExtras{}
	}
	var x recordExtras
	field := func(k string, v any) {
		if raw, ok := m[k]; ok {
			_ = json.Unmarshal(raw, v)
		}
	}
	field("liveness", &x.Liveness)
	field("record_path", &x.RecordPath)
	field("compatibility", &x.Compatibility)
	field("raw", &x.Raw)
	if a, ok := m["active"]; ok && string(a) != "null" {
		inner := extras(a)
		inner.Active = a
		return inner
	}
	return x
}

// fromRecord makes a target of one stdin record.
func fromRecord(line []byte, profs []profiles.Profile) (*target, error) {
	ref, err := sessions.FromRecord(line)
	if err != nil && !errors.Is(err, sessions.ErrNoRef) {
		return nil, err
	}
	x := extras(line)
	t := &target{Target: peer.Target{SocketPath: ref.SocketPath, SessionID: ref.SessionID, Pid: ref.Pid}, address: ref.Address}
	if len(x.Raw) > 0 && string(x.Raw) != "null" {
		t.PeerProtocol = protocolOf(x.Raw)
	}
	if t.SocketPath == "" {
		if ref.SessionID != "" && !ref.Active {
			return nil, fmt.Errorf("%s: %w (the record has no active part)", t.who(), peer.ErrNotRunning)
		}
		if ref.SessionID == "" && ref.TranscriptPath == "" {
			return nil, errors.New("not a session record: no socket_path or active.socket_path")
		}
	}
	if x.Liveness == string(registry.Dead) {
		return nil, fmt.Errorf("%s: %w (liveness dead)", t.who(), peer.ErrNotRunning)
	}
	if c := x.Compatibility; c != nil && c.Messaging != nil && !c.Messaging.OK {
		return nil, fmt.Errorf("%s: %w", t.who(), &peer.NotAlignedError{Reasons: c.Messaging.Reasons})
	}
	if err := t.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", t.who(), err)
	}
	var dirs []string
	if x.RecordPath != "" {
		dirs = append(dirs, filepath.Dir(x.RecordPath))
	}
	if ref.ConfigDir != "" {
		dirs = append(dirs, filepath.Join(ref.ConfigDir, "sessions"))
	}
	for _, p := range profs {
		dirs = append(dirs, p.SessionsDir)
	}
	t.readKey(dirs)
	return t, nil
}

// readKey looks for the target's key file in the given registry dirs, the
// first readable one wins. Without one the message goes without the auth
// line, which Linux and macOS receivers accept.
func (t *target) readKey(dirs []string) {
	if t.Pid <= 0 || t.SocketPath == "" {
		return
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		if d == "" || seen[d] {
			continue
		}
		seen[d] = true
		k, err := registry.ReadKey(d, t.Pid, t.SocketPath)
		if errors.Is(err, registry.ErrNoKey) {
			continue
		}
		if err != nil {
			t.keyProblem = err
			continue
		}
		t.KeyToken, t.keyProblem = k.Token(), nil
		return
	}
}
