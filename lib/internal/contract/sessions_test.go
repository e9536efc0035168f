package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/commands/ccsessions"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// activeRecord is the part of a cc-sessions --active record checked here.
type activeRecord struct {
	Address        string `json:"address"`
	Pid            int    `json:"pid"`
	SessionID      string `json:"session_id"`
	Name           string `json:"name"`
	Status         string `json:"status"`
	SocketPath     string `json:"socket_path"`
	TranscriptPath string `json:"transcript_path"`
	Liveness       string `json:"liveness"`
	Compatibility  map[string]struct {
		OK      bool     `json:"ok"`
		Reasons []string `json:"reasons"`
	} `json:"compatibility"`
}

// ccActive runs cc-sessions --active in-process against the test machine
// and returns the record of pid, if listed.
func ccActive(t *testing.T, e *claudetest.Env, pid int) (activeRecord, bool) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := ccsessions.RunWith(system(e.Home, e.ConfigDir), []string{"--active"}, nil, &out, &errb); code != 0 {
		t.Fatalf("cc-sessions --active: exit %d: %s", code, errb.String())
	}
	for _, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var r activeRecord
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("cc-sessions --active printed %q: %v", line, err)
		}
		if r.Pid == pid {
			return r, true
		}
	}
	return activeRecord{}, false
}

func waitActive(t *testing.T, e *claudetest.Env, pid int, what string, pred func(activeRecord, bool) bool) activeRecord {
	t.Helper()
	var last activeRecord
	err := claudetest.Poll(30*time.Second, func() (bool, error) {
		r, ok := ccActive(t, e, pid)
		last = r
		return pred(r, ok), nil
	})
	if err != nil {
		t.Fatalf("cc-sessions --active: waiting for %s: %v (last %+v)", what, err, last)
	}
	return last
}

// buildSessions builds cc-sessions into a fresh dir for the CLI's Bash tool.
func buildSessions(t *testing.T) string {
	t.Helper()
	return golden.Build(t, "cc-sessions")
}

// An interactive session under tmux appears in --active with its name,
// status (idle, busy during a turn, idle again), socket and transcript;
// cc-sessions --current run by its Bash tool finds it (with the session's
// env, and by walking up the process tree without it); after /exit it is
// gone; after kill -9 its leftover record is dropped.
func TestSessionsActiveCurrent(t *testing.T) {
	Require(t)
	t.Parallel()
	bin := buildSessions(t)
	const current = `cc-sessions --current --jq '"CUR1=" + .session_id' -r; ` +
		`env -u CLAUDE_PID -u CLAUDE_CODE_SESSION_ID cc-sessions --current --jq '"CUR2=" + .session_id' -r`
	e := claudetest.New(t, claudetest.Config{
		Script: &fakeapi.Script{Turns: []fakeapi.Turn{
			{Name: "slow", Match: "go slow", DelayMS: 700, Blocks: []fakeapi.Block{fakeapi.Text("slow turn finished")}},
			{Name: "bash", Match: "find yourself", Blocks: []fakeapi.Block{fakeapi.ToolUse("Bash", map[string]any{"command": current})}},
			{Name: "after-bash", Match: "CUR", Blocks: []fakeapi.Block{fakeapi.Text("found myself")}},
		}},
		Env: []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")},
	})
	dir := e.Project("sessions-contract")
	// Default permission mode: in the auto mode this .claude.json starts in,
	// the CLI sets allow rules such as Bash aside when its classifier is
	// unreachable (offline), and asks on screen instead.
	s := e.Interactive(claudetest.Cmd{Dir: dir, Args: []string{"-n", "sess-contract", "--permission-mode", "default"}, AllowedTools: []string{"Bash"}})
	reg := s.WaitReady(40 * time.Second)
	sock, _ := reg.Fields["messagingSocketPath"].(string)

	r := waitActive(t, e, s.Pid, "idle", func(r activeRecord, ok bool) bool { return ok && r.Status == "idle" && r.Name == "sess-contract" })
	profile := filepath.Base(e.ConfigDir)
	if r.Address != profile+"/sess-contract" || r.SocketPath != sock || r.Liveness != "alive" || r.SessionID == "" {
		t.Errorf("--active record %+v; want address %s/sess-contract, socket %s, alive", r, profile, sock)
	}
	for name, f := range r.Compatibility {
		if !f.OK {
			t.Errorf("compatibility %s not ok: %v", name, f.Reasons)
		}
	}

	s.Type("go slow")
	waitActive(t, e, s.Pid, "busy", func(r activeRecord, ok bool) bool { return ok && r.Status == "busy" })
	s.WaitScreen("slow turn finished", 30*time.Second)
	r = waitActive(t, e, s.Pid, "idle after the turn", func(r activeRecord, ok bool) bool {
		return ok && r.Status == "idle" && r.TranscriptPath != ""
	})
	if want := e.TranscriptPath(dir, r.SessionID); r.TranscriptPath != want {
		t.Errorf("transcript_path %s, want %s", r.TranscriptPath, want)
	}

	s.Type("find yourself")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, err := e.API.WaitRequest(ctx, func(q fakeapi.Request) bool { return q.Contains("CUR1=") || q.Contains("Exit code") })
	if err != nil {
		var kinds []string
		for _, q := range e.API.Requests() {
			kinds = append(kinds, q.Kind+":"+q.TurnName+":"+q.LastUserText())
		}
		t.Fatalf("the Bash tool result never reached the model: %v\nrequests: %q\nscreen:\n%s", err, kinds, s.Screen())
	}
	text := req.LastUserText()
	for _, want := range []string{"CUR1=" + r.SessionID, "CUR2=" + r.SessionID} {
		if !strings.Contains(text, want) {
			t.Errorf("tool result %q lacks %q", text, want)
		}
	}
	s.WaitScreen("found myself", 30*time.Second)

	s.Exit(20 * time.Second)
	if _, ok := ccActive(t, e, s.Pid); ok {
		t.Errorf("pid %d still listed after /exit", s.Pid)
	}

	k := e.Interactive(claudetest.Cmd{Dir: dir})
	kreg := k.WaitReady(40 * time.Second)
	waitActive(t, e, k.Pid, "the second session", func(r activeRecord, ok bool) bool { return ok })
	k.Kill9()
	if _, err := os.Stat(kreg.Path); err != nil {
		t.Fatalf("kill -9 should leave the record behind: %v", err)
	}
	if r, ok := ccActive(t, e, k.Pid); ok {
		t.Errorf("record of a killed session listed: %+v", r)
	}
}
