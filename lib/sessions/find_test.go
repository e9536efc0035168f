package sessions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/registry"
)

const (
	idA = "aaaaaaaa-0000-4000-8000-000000000001"
	idB = "abbbbbbb-0000-4000-8000-000000000002"
	idC = "cccccccc-0000-4000-8000-000000000003"
)

// findTree is a config dir with transcripts A (cwd /w/a) and C (under a
// CLAUDE_CODE_PROJECT_DIR_NAME dir), and two running sessions: A named
// "x" and B (no transcript yet) also named "x" in profile "p".
func findTree(t *testing.T) ([]profiles.Profile, []Active) {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	cfg := filepath.Join(root, "cfg")
	for path, body := range map[string]string{
		"projects/-w-a/" + idA + ".jsonl":  lineStart + "\n",
		"projects/named/" + idC + ".jsonl": `{"type":"user","cwd":"/w/c","message":{"content":"c"}}` + "\n",
	} {
		p := filepath.Join(cfg, path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	profs := []profiles.Profile{{Name: "p", ConfigDir: cfg, ProjectsDir: filepath.Join(cfg, "projects"), SessionsDir: filepath.Join(cfg, "sessions")}}
	actives := []Active{
		{Address: "p/x", Profile: "p", Pid: 10, SessionID: idA, Name: "x", Liveness: "alive", TranscriptPath: filepath.Join(cfg, "projects/-w-a/"+idA+".jsonl")},
		{Address: "p/x", Profile: "p", Pid: 11, SessionID: idB, Name: "x", Liveness: "alive"},
		{Address: "p/solo", Profile: "p", Pid: 12, SessionID: idB, Name: "solo", Liveness: "alive"},
	}
	return profs, actives
}

func TestFind(t *testing.T) {
	profs, actives := findTree(t)
	ctx := context.Background()
	opt := FindOptions{Active: actives}
	tests := []struct {
		query   string
		wantID  string
		wantPid int
		err     string // "notfound", "ambiguous", "invalid"
		cands   int
	}{
		{query: "pid:10", wantID: idA, wantPid: 10},
		{query: "pid:12", wantID: idB, wantPid: 12},
		{query: "pid:99", err: "notfound"},
		{query: "pid:x", err: "invalid"},
		{query: "p/solo", wantID: idB, wantPid: 12},
		{query: "p/x", err: "ambiguous", cands: 2},
		{query: "x", err: "ambiguous", cands: 2},
		{query: "solo", wantID: idB, wantPid: 12},
		{query: idC, wantID: idC},
		{query: "CCCCCCCC-0000-4000-8000-000000000003", wantID: idC},
		{query: idA, wantID: idA, wantPid: 10},
		{query: "cc", wantID: idC},
		{query: "a", err: "ambiguous", cands: 2},
		{query: "ab", wantID: idB, wantPid: 12},
		{query: "zz", err: "notfound"},
		{query: "", err: "notfound"},
	}
	for _, tt := range tests {
		s, err := Find(ctx, tt.query, profs, opt)
		var nf *NotFoundError
		var amb *AmbiguousError
		switch tt.err {
		case "notfound":
			if !errors.As(err, &nf) {
				t.Errorf("%q: err %v, want not found", tt.query, err)
			}
			continue
		case "ambiguous":
			if !errors.As(err, &amb) || len(amb.Candidates) != tt.cands {
				t.Errorf("%q: err %v, want %d candidates", tt.query, err, tt.cands)
			}
			continue
		case "invalid":
			if err == nil || errors.As(err, &nf) {
				t.Errorf("%q: err %v, want an invalid query", tt.query, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.query, err)
			continue
		}
		pid := 0
		if s.Active != nil {
			pid = s.Active.Pid
		}
		if s.SessionID != tt.wantID || pid != tt.wantPid {
			t.Errorf("%q: got %s pid %d, want %s pid %d", tt.query, s.SessionID, pid, tt.wantID, tt.wantPid)
		}
	}
	// An ended session found by id has its transcript summary and no Active.
	s, err := Find(ctx, idC, profs, opt)
	if err != nil || s.Cwd != "/w/c" || s.Active != nil || !reflect.DeepEqual(s.Profiles, []string{"p"}) {
		t.Errorf("by id: %+v %v", s, err)
	}
}

func TestCurrent(t *testing.T) {
	profs, actives := findTree(t)
	// A fake process tree: 40 -> 30 -> 10 (the registered session) -> 1.
	root := t.TempDir()
	for pid, ppid := range map[int]int{40: 30, 30: 10, 10: 1, 50: 1} {
		d := filepath.Join(root, fmt.Sprint(pid))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "stat"), []byte(fmt.Sprintf("%d (sh) S %d 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0", pid, ppid)), 0o644)
	}
	host := &registry.Host{Domain: "d", ProcRoot: root, Probe: func(int) bool { return true }}
	tests := []struct {
		name   string
		env    map[string]string
		pid    int
		wantID string
		err    bool
	}{
		{name: "CLAUDE_PID", env: map[string]string{"CLAUDE_PID": "12"}, pid: 50, wantID: idB},
		{name: "session id", env: map[string]string{"CLAUDE_CODE_SESSION_ID": idC}, pid: 50, wantID: idC},
		{name: "stale CLAUDE_PID falls back to the walk", env: map[string]string{"CLAUDE_PID": "77"}, pid: 40, wantID: idA},
		{name: "walk up", pid: 40, wantID: idA},
		{name: "nothing", pid: 50, err: true},
	}
	for _, tt := range tests {
		s, err := Current(context.Background(), profs, CurrentOptions{
			FindOptions: FindOptions{Active: actives, Host: host},
			Getenv:      func(k string) string { return tt.env[k] }, Pid: tt.pid,
		})
		var nf *NotFoundError
		if tt.err {
			if !errors.As(err, &nf) {
				t.Errorf("%s: %v, want not found", tt.name, err)
			}
			continue
		}
		if err != nil || s.SessionID != tt.wantID {
			t.Errorf("%s: %s %v, want %s", tt.name, s.SessionID, err, tt.wantID)
		}
	}
}

func TestFromRecord(t *testing.T) {
	tests := []struct {
		name string
		line string
		want Ref
		err  bool
	}{
		{"session record", `{"session_id":"` + idA + `","transcript_path":"/c/projects/x/` + idA + `.jsonl","active":null}`,
			Ref{SessionID: idA, TranscriptPath: "/c/projects/x/" + idA + ".jsonl"}, false},
		{"session record running", `{"session_id":"` + idA + `","active":{"pid":7,"socket_path":"/s.sock","address":"p/n","name":"n","profile":"p"}}`,
			Ref{SessionID: idA, SocketPath: "/s.sock", Pid: 7, Address: "p/n", Name: "n", Profile: "p", Active: true}, false},
		{"active record", `{"address":"p/n","pid":7,"session_id":"` + idA + `","socket_path":"/s.sock","liveness":"alive"}`,
			Ref{SessionID: idA, SocketPath: "/s.sock", Pid: 7, Address: "p/n", Active: true, Liveness: "alive"}, false},
		{"sender state from the active part", `{"session_id":"` + idA + `","liveness":"dead","active":{"socket_path":"/s.sock","liveness":"unknown","record_path":"/c/sessions/7.json","raw":{"peerProtocol":1.5}}}`,
			Ref{SessionID: idA, SocketPath: "/s.sock", Active: true, Liveness: "unknown", RecordPath: "/c/sessions/7.json", PeerProtocol: -1}, false},
		{"profile record", `{"name":"work","config_dir":"/c","projects_dir":"/c/projects"}`,
			Ref{ConfigDir: "/c", ProjectsDir: "/c/projects", Name: "work"}, false},
		{"hook payload", `{"session_id":"` + idA + `","transcript_path":"/t.jsonl","cwd":"/w","hook_event_name":"Stop"}`,
			Ref{SessionID: idA, TranscriptPath: "/t.jsonl", Cwd: "/w"}, false},
		{"entry with cc_source", `{"cc_source":{"path":"/c/projects/x/` + idA + `/subagents/agent-a.jsonl","line":3},"type":"user"}`,
			Ref{SessionID: idA, TranscriptPath: "/c/projects/x/" + idA + "/subagents/agent-a.jsonl"}, false},
		{"registry record", `{"pid":7,"sessionId":"` + idA + `","messagingSocketPath":"/s.sock"}`,
			Ref{SessionID: idA, SocketPath: "/s.sock", Pid: 7, Active: true}, false},
		{"transcript line", `{"type":"user","sessionId":"` + idA + `","cwd":"/w"}`, Ref{SessionID: idA, Cwd: "/w"}, false},
		// The session id lost, the path's stands in (records.SessionOfPath).
		{"wrong types lose only their field", `{"session_id":5,"transcript_path":"/t.jsonl","pid":"x"}`, Ref{SessionID: "t", TranscriptPath: "/t.jsonl"}, false},
		{"nothing useful", `{"type":"user"}`, Ref{}, true},
		{"not an object", `[1]`, Ref{}, true},
		{"not json", `{`, Ref{}, true},
	}
	// compatibility.messaging comes through as given.
	got, _ := FromRecord([]byte(`{"socket_path":"/s.sock","compatibility":{"messaging":{"ok":false,"reasons":["peerProtocol 2"]}},"raw":{"peerProtocol":2}}`))
	if got.Messaging == nil || got.Messaging.OK || len(got.Messaging.Reasons) != 1 || got.PeerProtocol != 2 {
		t.Errorf("compatibility: %+v", got)
	}
	for _, tt := range tests {
		got, err := FromRecord([]byte(tt.line))
		if tt.err {
			if err == nil {
				t.Errorf("%s: no error", tt.name)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v %v\nwant %+v", tt.name, got, err, tt.want)
		}
	}
}

func FuzzFromRecord(f *testing.F) {
	f.Add([]byte(`{"session_id":"x","active":{"pid":1.5,"socket_path":2}}`))
	f.Add([]byte(`{"cc_source":{"path":7}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := FromRecord(data)
		if err == nil && r.SessionID == "" && r.TranscriptPath == "" && r.SocketPath == "" && r.ConfigDir == "" {
			t.Fatal("a Ref with nothing in it")
		}
	})
}

// TestFindEmptyNameMatchesNothing is issue 13 item 20: "p/" is no address,
// and an unnamed running session is not found by it (nor by ""); item 19:
// a name that matches nothing says what a query is matched against.
func TestFindEmptyNameMatchesNothing(t *testing.T) {
	profs, actives := findTree(t)
	actives = append(actives, Active{Address: "p/", Profile: "p", Pid: 13, SessionID: idC, Name: "", Liveness: "alive"})
	opt := FindOptions{Active: actives}
	for _, q := range []string{"p/", ""} {
		s, err := Find(context.Background(), q, profs, opt)
		var nf *NotFoundError
		if !errors.As(err, &nf) {
			t.Errorf("Find(%q) = %v, %v; want not found", q, s.SessionID, err)
		}
	}
	_, err := Find(context.Background(), "some old title", profs, opt)
	var nf *NotFoundError
	if !errors.As(err, &nf) || !nf.ByName || !regexpMatch(`by name, title, id or id prefix`, err.Error()) {
		t.Errorf("Find(title) = %v", err)
	}
}

func regexpMatch(pat, s string) bool {
	ok, _ := regexp.MatchString(pat, s)
	return ok
}
