package sessions

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/registry"
)

// PeerProtocol is the messaging protocol version this package speaks.
const PeerProtocol = 1

// ActiveOptions tunes ActiveSessions.
type ActiveOptions struct {
	// Host checks liveness (default registry.LocalHost()).
	Host *registry.Host
	// Getenv reads this process's environment for the scratchpad guess
	// when the session's own environment cannot be read (nil: an empty
	// one; the commands pass cli.System's).
	Getenv func(string) string
	// KeepDead keeps records whose process has ended (liveness "dead").
	KeepDead bool
}

// noEnv is the empty environment of a caller that passes none.
func noEnv(string) string { return "" }

// ActiveSessions reads the registry of every profile (each distinct
// sessions dir once) and returns the sessions whose process runs, or whose
// liveness cannot be told (another pidDomain). Torn or unreadable records
// come back as errors. The result is sorted newest update first.
func ActiveSessions(ctx context.Context, profs []profiles.Profile, opt ActiveOptions) ([]Active, []error) {
	host := opt.Host
	if host == nil {
		host = registry.LocalHost()
	}
	getenv := opt.Getenv
	if getenv == nil {
		getenv = noEnv
	}
	var out []Active
	var errs []error
	seen := map[string]bool{}
	for _, p := range profs {
		if ctx.Err() != nil {
			return out, append(errs, ctx.Err())
		}
		if profiles.IsArchive(p) {
			continue // copies only: no session runs from an archive
		}
		dir := p.SessionsDir
		if dir == "" {
			dir = layout.SessionsDir(p.ConfigDir)
		}
		resolved := profiles.Resolve(dir)
		if seen[resolved] {
			continue
		}
		seen[resolved] = true
		recs, rerrs := registry.Read(dir)
		errs = append(errs, rerrs...)
		projectsDir := p.ProjectsDir
		if projectsDir == "" {
			projectsDir = layout.ProjectsDir(p.ConfigDir)
		}
		projectsDir = profiles.Resolve(projectsDir)
		for _, r := range recs {
			live := host.Check(r)
			if live == registry.Dead && !opt.KeepDead {
				continue
			}
			a := NewActive(p.Name, r, live, host, getenv)
			a.TranscriptPath = findTranscript(projectsDir, r.SessionID, r.Cwd)
			out = append(out, a)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].UpdatedAt.Equal(out[j].UpdatedAt) {
			return out[i].UpdatedAt.After(out[j].UpdatedAt)
		}
		if out[i].Profile != out[j].Profile {
			return out[i].Profile < out[j].Profile
		}
		return out[i].Pid < out[j].Pid
	})
	return out, errs
}

// NewActive builds the --active record of a registry record read under
// the named profile.
func NewActive(profile string, r registry.Record, live registry.Liveness, host *registry.Host, getenv func(string) string) Active {
	a := Active{
		Profile: profile, Pid: r.Pid, SessionID: r.SessionID, Name: r.Name, NameSource: r.NameSource,
		Status: r.Status, WaitingFor: r.WaitingFor, Cwd: r.Cwd, Kind: r.Kind, Entrypoint: r.Entrypoint,
		Version: r.Version, Tmux: r.Tmux, SocketPath: r.MessagingSocketPath,
		StartedAt: msTime(r.StartedAt), UpdatedAt: msTime(r.UpdatedAt),
		Liveness: string(live), RecordPath: r.File, Raw: r.Raw,
	}
	if a.UpdatedAt.IsZero() {
		a.UpdatedAt = a.StartedAt
	}
	if r.Name != "" {
		a.Address = profile + "/" + r.Name
	}
	a.Compatibility = Check(r, host)
	if r.SessionID != "" && r.Cwd != "" {
		a.ScratchpadDir, a.ScratchpadDirInferred = scratchpadDir(r, live, host, getenv)
	}
	return a
}

func msTime(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// Check says which features of a registry record this version can use,
// with a reason for each that it cannot.
func Check(r registry.Record, host *registry.Host) Compatibility {
	mismatch := map[string]bool{}
	for _, m := range r.Mismatches {
		mismatch[m] = true
	}
	var c Compatibility
	var rs []string
	switch {
	case mismatch["peerProtocol"]:
		rs = append(rs, "peerProtocol is not a number")
	case r.PeerProtocol == 0:
		rs = append(rs, "no peerProtocol in the record")
	case r.PeerProtocol != PeerProtocol:
		rs = append(rs, fmt.Sprintf("peerProtocol %d (this version speaks %d)", r.PeerProtocol, PeerProtocol))
	}
	switch {
	case mismatch["messagingSocketPath"]:
		rs = append(rs, "messagingSocketPath is not a string")
	case r.MessagingSocketPath == "":
		rs = append(rs, "no messagingSocketPath (messaging off, or not published yet)")
	}
	c.Messaging = feature(rs)

	rs = nil
	if r.SessionID == "" {
		rs = append(rs, "no sessionId string")
	}
	if r.Cwd == "" {
		rs = append(rs, "no cwd string")
	}
	c.Scratchpad = feature(rs)

	rs = nil
	if mismatch["pid"] {
		rs = append(rs, "the record's pid differs from its file name")
	}
	if runtime.GOOS == "linux" && r.ProcStart == "" {
		rs = append(rs, "no procStart string: a reused pid cannot be told apart")
	}
	if host != nil && !host.SameDomain(r.PidDomain) {
		rs = append(rs, "another pidDomain (other machine or pid namespace): pid not probed")
	}
	c.Liveness = feature(rs)
	return c
}

func feature(reasons []string) Feature {
	if reasons == nil {
		reasons = []string{}
	}
	return Feature{OK: len(reasons) == 0, Reasons: reasons}
}

// scratchpadDir is <realpath(tmp)>/claude-<uid>/<slug of cwd>/<session id>/scratchpad,
// where tmp is the session's CLAUDE_CODE_TMPDIR, else its TMPDIR, else
// /tmp. The session's own environment is read from /proc when possible;
// otherwise this process's is used and the result is marked inferred.
func scratchpadDir(r registry.Record, live registry.Liveness, host *registry.Host, getenv func(string) string) (string, bool) {
	inferred := true
	uid := os.Getuid()
	get := getenv
	if live == registry.Alive && host != nil {
		if env, owner, ok := procEnviron(host, r.Pid); ok {
			get = func(k string) string { return env[k] }
			uid = owner
			inferred = false
		}
	}
	tmp := get("CLAUDE_CODE_TMPDIR")
	if tmp == "" {
		tmp = get("TMPDIR")
	}
	if tmp == "" {
		tmp = "/tmp"
	}
	tmp = resolve(strings.TrimRight(tmp, "/"))
	if tmp == "" {
		tmp = "/"
	}
	return filepath.Join(tmp, "claude-"+strconv.Itoa(uid), Slug(r.Cwd), r.SessionID, "scratchpad"), inferred
}

// procEnviron reads /proc/<pid>/environ and the process's uid; ok is false
// when it cannot be read (another user's process).
func procEnviron(host *registry.Host, pid int) (map[string]string, int, bool) {
	root := host.ProcRoot
	if root == "" {
		root = "/proc"
	}
	dir := filepath.Join(root, strconv.Itoa(pid))
	data, err := os.ReadFile(filepath.Join(dir, "environ"))
	if err != nil || len(data) == 0 {
		return nil, 0, false
	}
	env := map[string]string{}
	for _, kv := range bytes.Split(data, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok {
			env[k] = v
		}
	}
	uid := os.Getuid()
	if fi, err := os.Stat(dir); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			uid = int(st.Uid)
		}
	}
	return env, uid, true
}

// findTranscript looks for <id>.jsonl (or an archive) in the project dirs
// of cwd first, then in every project dir of projectsDir (the session may
// have moved to a worktree, or use CLAUDE_CODE_PROJECT_DIR_NAME).
func findTranscript(projectsDir, id, cwd string) string {
	if id == "" {
		return ""
	}
	var first []string
	if cwd != "" {
		first = ProjectDirsFor(cwd)
	}
	for _, slug := range first {
		if p := transcriptIn(filepath.Join(projectsDir, slug), id); p != "" {
			return p
		}
	}
	ents, err := os.ReadDir(projectsDir)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		if p := transcriptIn(filepath.Join(projectsDir, e.Name()), id); p != "" {
			return p
		}
	}
	return ""
}

func transcriptIn(projectDir, id string) string {
	for _, suf := range layout.TranscriptSuffixes {
		p := filepath.Join(projectDir, id+suf)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}
