package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// MaxKeyBytes is the largest key file Claude Code reads.
const MaxKeyBytes = 4096

// ErrNoKey means no key file exists for the socket: on Linux a peer may
// still connect without the auth line.
var ErrNoKey = errors.New("no key file")

// Key is a session's <pid>.<hash>.key file. The peer token is unexported
// so that no encoder, printer or log can show it; only Token returns it.
type Key struct {
	Path      string `json:"path"`
	ProcStart string `json:"proc_start,omitempty"`
	PidDomain string `json:"pid_domain,omitempty"`
	token     string
}

// Token is the bearer secret for the socket's auth line. Use it only to
// authenticate; never print it.
func (k Key) Token() string { return k.token }

// String shows the key file without its token.
func (k Key) String() string { return "key " + k.Path }

// GoString keeps %#v from printing the token.
func (k Key) GoString() string { return k.String() }

// Format makes every fmt verb print the masked form.
func (k Key) Format(f fmt.State, _ rune) { fmt.Fprint(f, k.String()) }

// SocketHash is the middle part of a key file name: SHA-256 of the socket
// path as Claude Code stores it in messagingSocketPath.
func SocketHash(socketPath string) string {
	sum := sha256.Sum256([]byte(socketPath))
	return hex.EncodeToString(sum[:])
}

// KeyPath is where the key of pid's socket lives.
func KeyPath(sessionsDir string, pid int, socketPath string) string {
	return filepath.Join(sessionsDir, strconv.Itoa(pid)+"."+SocketHash(socketPath)+".key")
}

// ReadKey reads the key file of pid's socket. It returns ErrNoKey when
// there is none. A key whose procStart or pidDomain differ from the
// record's belongs to an earlier process with the same pid; MatchesRecord
// tells.
func ReadKey(sessionsDir string, pid int, socketPath string) (Key, error) {
	path := KeyPath(sessionsDir, pid, socketPath)
	data, err := readCapped(path, MaxKeyBytes)
	if errors.Is(err, os.ErrNotExist) {
		return Key{}, ErrNoKey
	}
	if err != nil {
		return Key{}, err
	}
	var v struct {
		PeerToken *string `json:"peerToken"`
		ProcStart string  `json:"procStart"`
		PidDomain string  `json:"pidDomain"`
	}
	// The error of a failed decode can quote the input: keep it out.
	if json.Unmarshal(data, &v) != nil {
		return Key{}, fmt.Errorf("%s: not a key file (invalid JSON)", path)
	}
	if v.PeerToken == nil || *v.PeerToken == "" {
		return Key{}, fmt.Errorf("%s: no peerToken", path)
	}
	return Key{Path: path, ProcStart: v.ProcStart, PidDomain: v.PidDomain, token: *v.PeerToken}, nil
}

// KeyFor reads the key of a record's socket.
func KeyFor(r Record) (Key, error) {
	if r.MessagingSocketPath == "" {
		return Key{}, ErrNoKey
	}
	return ReadKey(filepath.Dir(r.File), r.Pid, r.MessagingSocketPath)
}

// MatchesRecord reports whether the key was written by the record's
// process (same start token and pid domain where both are known).
func (k Key) MatchesRecord(r Record) bool {
	if k.ProcStart != "" && r.ProcStart != "" && k.ProcStart != r.ProcStart {
		return false
	}
	return k.PidDomain == "" || r.PidDomain == "" || k.PidDomain == r.PidDomain
}

// FindKey reads pid's key file for socketPath from the first of dirs
// (registry dirs, in order of preference) that has a readable one. With
// none it returns ErrNoKey, or the last read error when a key file was
// there but could not be read; the message then goes without the auth
// line, which Linux and macOS receivers accept.
func FindKey(dirs []string, pid int, socketPath string) (Key, error) {
	if pid <= 0 || socketPath == "" {
		return Key{}, ErrNoKey
	}
	seen := map[string]bool{}
	var problem error
	for _, d := range dirs {
		if d == "" || seen[d] {
			continue
		}
		seen[d] = true
		k, err := ReadKey(d, pid, socketPath)
		if errors.Is(err, ErrNoKey) {
			continue
		}
		if err != nil {
			problem = err
			continue
		}
		return k, nil
	}
	if problem != nil {
		return Key{}, problem
	}
	return Key{}, ErrNoKey
}
