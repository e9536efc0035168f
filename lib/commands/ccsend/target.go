package ccsend

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/internal/load"
	"github.com/ccpipe/ccpipe/lib/layout"
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
			FindOptions: sessions.FindOptions{Getenv: o.sys.Getenv},
			Getenv:      o.sys.Getenv, Pid: o.sys.Pid,
		})
	} else {
		query = args[0]
		store := load.SummaryStore(o.sys, false)
		s, err = sessions.Find(env.Ctx, query, profs, sessions.FindOptions{Getenv: o.sys.Getenv, Cache: store})
		store.SaveReport(false, env.Warnf)
	}
	if err != nil {
		return nil, describeErr(env, query, err)
	}
	a := s.Active
	if a == nil {
		// Found by its id or title among the sessions that ended.
		who := s.SessionID
		if s.Title != "" {
			who += " " + strconv.Quote(s.Title)
		}
		return nil, fmt.Errorf("%s: %w: it has ended (no registry record; its transcript is %s)", who, peer.ErrNotRunning, s.TranscriptPath)
	}
	t := &target{
		Target:  peer.Target{SocketPath: a.SocketPath, SessionID: a.SessionID, Pid: a.Pid, PeerProtocol: a.PeerProtocol()},
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

// fromRecord makes a target of one stdin record.
func fromRecord(line []byte, profs []profiles.Profile) (*target, error) {
	ref, err := sessions.FromRecord(line)
	if err != nil && !errors.Is(err, sessions.ErrNoRef) {
		return nil, err
	}
	t := &target{Target: peer.Target{SocketPath: ref.SocketPath, SessionID: ref.SessionID, Pid: ref.Pid, PeerProtocol: ref.PeerProtocol}, address: ref.Address}
	if t.SocketPath == "" {
		if ref.SessionID != "" && !ref.Active {
			return nil, fmt.Errorf("%s: %w (the record has no active part)", t.who(), peer.ErrNotRunning)
		}
		if ref.SessionID == "" && ref.TranscriptPath == "" {
			return nil, errors.New("not a session record: no socket_path or active.socket_path")
		}
	}
	if ref.Liveness == string(registry.Dead) {
		return nil, fmt.Errorf("%s: %w (liveness dead)", t.who(), peer.ErrNotRunning)
	}
	if m := ref.Messaging; m != nil && !m.OK {
		return nil, fmt.Errorf("%s: %w", t.who(), &peer.NotAlignedError{Reasons: m.Reasons})
	}
	if err := t.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", t.who(), err)
	}
	var dirs []string
	if ref.RecordPath != "" {
		dirs = append(dirs, filepath.Dir(ref.RecordPath))
	}
	if ref.ConfigDir != "" {
		dirs = append(dirs, layout.SessionsDir(ref.ConfigDir))
	}
	for _, p := range profs {
		dirs = append(dirs, p.SessionsDir)
	}
	t.readKey(dirs)
	return t, nil
}

// readKey takes the target's key token from the first readable key file
// in dirs; a key file that exists but cannot be read is kept as
// keyProblem (the message then goes without the auth line).
func (t *target) readKey(dirs []string) {
	k, err := registry.FindKey(dirs, t.Pid, t.SocketPath)
	switch {
	case err == nil:
		t.KeyToken = k.Token()
	case !errors.Is(err, registry.ErrNoKey):
		t.keyProblem = err
	}
}
