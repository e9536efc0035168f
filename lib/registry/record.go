package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ccpipe/ccpipe/lib/regular"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"time"
)

// MaxRecordBytes is the largest record Claude Code itself reads; a bigger
// file is not a record.
const MaxRecordBytes = 262144

// RetryDelay is how long Read waits before reading a torn record again:
// Claude Code rewrites records in place, and re-reads once after 25 ms too.
var RetryDelay = 25 * time.Millisecond

// Record is one <pid>.json. Every field except Pid and Raw may be missing
// (zero); a field present with an unexpected type reads as missing and is
// named in Mismatches.
type Record struct {
	Pid  int    `json:"pid"`
	File string `json:"file"` // path of the <pid>.json

	SessionID           string   `json:"session_id,omitempty"`
	Cwd                 string   `json:"cwd,omitempty"`
	StartedAt           int64    `json:"started_at_ms,omitempty"` // ms since the epoch
	ProcStart           string   `json:"proc_start,omitempty"`
	ProcStartFt         string   `json:"proc_start_ft,omitempty"` // Windows
	Version             string   `json:"version,omitempty"`
	PeerProtocol        int      `json:"peer_protocol,omitempty"`
	PeerFeatures        []string `json:"peer_features,omitempty"`
	Kind                string   `json:"kind,omitempty"`
	Entrypoint          string   `json:"entrypoint,omitempty"`
	PidDomain           string   `json:"pid_domain,omitempty"`
	Tmux                string   `json:"tmux,omitempty"`
	MessagingSocketPath string   `json:"messaging_socket_path,omitempty"`
	Name                string   `json:"name,omitempty"`
	NameSource          string   `json:"name_source,omitempty"`
	NameSince           int64    `json:"name_since_ms,omitempty"`
	Status              string   `json:"status,omitempty"`
	WaitingFor          string   `json:"waiting_for,omitempty"`
	UpdatedAt           int64    `json:"updated_at_ms,omitempty"`
	StatusUpdatedAt     int64    `json:"status_updated_at_ms,omitempty"`

	// Mismatches names the fields that were present with a type this
	// package does not expect (read as missing).
	Mismatches []string `json:"type_mismatches,omitempty"`
	// Raw is the record as read, byte for byte.
	Raw json.RawMessage `json:"raw"`
}

// Known enum values; an unknown value is kept in Raw and reads as missing
// here, as Claude Code's own reader does.
var (
	kinds       = set("interactive", "bg", "daemon", "daemon-worker")
	nameSources = set("derived", "user", "peer", "collision", "auto", "hook")
	statuses    = set("idle", "busy", "waiting", "shell")
)

func set(v ...string) map[string]bool {
	m := map[string]bool{}
	for _, s := range v {
		m[s] = true
	}
	return m
}

// recordName is a registry file name: the canonical decimal pid.
var recordName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([1-9][0-9]*)\.json$`) })

// Read reads every <pid>.json in sessionsDir. A record that does not parse
// (torn by a concurrent rewrite) is read once more after RetryDelay and
// then skipped with an error naming the file. A missing dir is no error: a
// profile that never ran a session has none. Records come sorted by pid.
func Read(sessionsDir string) ([]Record, []error) {
	ents, err := os.ReadDir(sessionsDir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, []error{fmt.Errorf("reading registry %s: %w", sessionsDir, err)}
	}
	var recs []Record
	var errs []error
	for _, e := range ents {
		m := recordName().FindStringSubmatch(e.Name())
		if m == nil {
			continue // keys, temp files, .fleetview-heartbeat, 007.json
		}
		pid, err := strconv.Atoi(m[1])
		if err != nil {
			continue // beyond int: no process has that pid
		}
		path := filepath.Join(sessionsDir, e.Name())
		rec, err := ReadFile(path, pid)
		switch {
		case errors.Is(err, os.ErrNotExist):
			// the session ended between the listing and the read
		case err != nil:
			errs = append(errs, err)
		default:
			recs = append(recs, rec)
		}
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Pid < recs[j].Pid })
	return recs, errs
}

// ReadFile reads one record file written for pid, retrying a torn read once.
func ReadFile(path string, pid int) (Record, error) {
	data, err := readCapped(path, MaxRecordBytes)
	if err != nil {
		return Record{}, err
	}
	rec, perr := Parse(data, pid)
	if perr == nil {
		rec.File = path
		return rec, nil
	}
	time.Sleep(RetryDelay)
	data, err = readCapped(path, MaxRecordBytes)
	if err != nil {
		return Record{}, err
	}
	if rec, perr = Parse(data, pid); perr != nil {
		return Record{}, fmt.Errorf("%s: skipped: %w", path, perr)
	}
	rec.File = path
	return rec, nil
}

func readCapped(path string, limit int64) ([]byte, error) {
	data, err := regular.ReadFile(path, limit)
	if errors.Is(err, regular.ErrTooLarge) {
		return nil, fmt.Errorf("%s: skipped: larger than %d bytes", path, limit)
	}
	return data, err
}

// Parse reads a record's bytes. pid is the one the file name gives (0 to
// take the record's own); a record whose pid field disagrees keeps the file
// name's and notes the mismatch. Only a record that is not a JSON object,
// or has no pid at all, is an error.
func Parse(data []byte, pid int) (Record, error) {
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return Record{}, fmt.Errorf("invalid JSON (torn record?): %w", err)
	}
	if m == nil {
		return Record{}, errors.New("record is not a JSON object")
	}
	if dec.More() {
		return Record{}, errors.New("invalid JSON (torn record?): data after the object")
	}
	r := Record{Raw: json.RawMessage(bytes.TrimSpace(data))}
	f := fields{m: m, r: &r}
	own := f.int("pid")
	switch {
	case pid == 0 && own <= 0:
		return Record{}, errors.New("record has no pid")
	case pid == 0:
		pid = int(own)
	case own != 0 && int(own) != pid:
		r.Mismatches = append(r.Mismatches, "pid")
	}
	r.Pid = pid
	r.SessionID = f.str("sessionId")
	r.Cwd = f.str("cwd")
	r.StartedAt = f.int("startedAt")
	r.ProcStart = f.str("procStart")
	r.ProcStartFt = f.str("procStartFt")
	r.Version = f.str("version")
	r.PeerProtocol = int(f.int("peerProtocol"))
	r.PeerFeatures = f.strs("peerFeatures")
	r.Kind = f.enum("kind", kinds)
	r.Entrypoint = f.str("entrypoint")
	r.PidDomain = f.str("pidDomain")
	r.Tmux = f.str("tmux")
	r.MessagingSocketPath = f.str("messagingSocketPath")
	r.Name = f.str("name")
	r.NameSource = f.enum("nameSource", nameSources)
	r.NameSince = f.int("nameSince")
	r.Status = f.enum("status", statuses)
	r.WaitingFor = f.str("waitingFor")
	r.UpdatedAt = f.int("updatedAt")
	r.StatusUpdatedAt = f.int("statusUpdatedAt")
	return r, nil
}

// fields reads typed values out of a decoded object, noting type mismatches.
type fields struct {
	m map[string]json.RawMessage
	r *Record
}

func (f fields) get(key string, v any) bool {
	raw, ok := f.m[key]
	if !ok || string(raw) == "null" {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		f.r.Mismatches = append(f.r.Mismatches, key)
		return false
	}
	return true
}

func (f fields) str(key string) string {
	var s string
	f.get(key, &s)
	return s
}

func (f fields) enum(key string, allowed map[string]bool) string {
	s := f.str(key)
	if !allowed[s] {
		return "" // an unknown value reads as absent; Raw keeps it
	}
	return s
}

func (f fields) int(key string) int64 {
	var n json.Number
	if !f.get(key, &n) {
		return 0
	}
	i, err := n.Int64()
	if err != nil {
		fl, ferr := n.Float64()
		if ferr != nil {
			f.r.Mismatches = append(f.r.Mismatches, key)
			return 0
		}
		return int64(fl)
	}
	return i
}

func (f fields) strs(key string) []string {
	var v []string
	f.get(key, &v)
	return v
}
