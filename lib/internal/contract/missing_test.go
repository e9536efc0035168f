package contract

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/commands/ccsessions"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// Issue 35 reported that Claude Code writes no transcript for a session
// that looks nested (an inherited CLAUDE_CODE_CHILD_SESSION). Claude Code
// 2.1.328 does write it: an interactive claude started with
// CLAUDE_CODE_CHILD_SESSION=1 (as from a Claude Code tool shell) leaves
// its transcript, and cc-sessions --missing, which lists what history.jsonl
// and the registry name without one, does not list it. (Headless runs
// with it, also with CLAUDECODE=1 and a CLAUDE_CODE_SESSION_ID, were seen
// to write theirs too.) A release that starts skipping the transcript
// fails here, and --missing's not_written cause is then the nested
// session's.
func TestNestedSessionTranscript(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("nested-marker")}},
	}}})
	dir := e.Project("nested")
	s := e.Interactive(claudetest.Cmd{Dir: dir, Env: []string{"CLAUDE_CODE_CHILD_SESSION=1"}})
	reg := s.WaitReady(40 * time.Second)
	sid, _ := reg.Fields["sessionId"].(string)
	s.Type("nested prompt")
	s.WaitScreen("nested-marker", 30*time.Second)
	e.WaitFor("the prompt in history.jsonl", 20*time.Second, func() (bool, error) {
		b, _ := os.ReadFile(e.ConfigDir + "/history.jsonl")
		return bytes.Contains(b, []byte(sid)), nil
	})
	s.Exit(15 * time.Second)
	path := e.TranscriptPath(dir, sid)
	if b, err := os.ReadFile(path); err != nil || !bytes.Contains(b, []byte("nested-marker")) {
		t.Fatalf("a session started with CLAUDE_CODE_CHILD_SESSION=1: transcript %s: %v", path, err)
	}
	var out, errb bytes.Buffer
	if code := ccsessions.RunWith(system(e.Home, e.ConfigDir), []string{"--missing"}, nil, &out, &errb); code != 0 || bytes.Contains(out.Bytes(), []byte(sid)) {
		t.Errorf("--missing: exit %d, %q %s", code, out.String(), errb.String())
	}
	// Without its transcript, history.jsonl still names it.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := ccsessions.RunWith(system(e.Home, e.ConfigDir), []string{"--missing"}, nil, &out, &errb); code != 0 ||
		!bytes.Contains(out.Bytes(), []byte(`"session_id":"`+sid+`"`)) || !bytes.Contains(out.Bytes(), []byte(`"cause":"not_written"`)) {
		t.Errorf("--missing without the transcript: exit %d, %q %s", code, out.String(), errb.String())
	}
}
