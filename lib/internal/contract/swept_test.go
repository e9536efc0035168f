package contract

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/commands/ccextract"
	"github.com/ccpipe/ccpipe/lib/commands/ccsessions"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// Issue 28's already-swept sessions: the prompts typed in an interactive
// session land in history.jsonl ({display,timestamp,project,sessionId});
// once the transcript is deleted, as the cleanup does, cc-sessions --swept
// lists the session from it and cc-extract prompts reads its prompts.
func TestSweptFromHistory(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("swept-marker-one")}},
		{Blocks: []fakeapi.Block{fakeapi.Text("swept-marker-two")}},
	}}})
	dir := e.Project("swept")
	s := e.Interactive(claudetest.Cmd{Dir: dir})
	reg := s.WaitReady(40 * time.Second)
	sid, _ := reg.Fields["sessionId"].(string)
	path := e.TranscriptPath(dir, sid)
	s.Type("swept prompt one")
	e.WaitTranscript(path, "swept-marker-one", 30*time.Second)
	s.Type("swept prompt two")
	e.WaitTranscript(path, "swept-marker-two", 30*time.Second)
	s.Exit(15 * time.Second)

	hist := filepath.Join(e.ConfigDir, "history.jsonl")
	b, err := os.ReadFile(hist)
	if err != nil {
		t.Fatalf("no history.jsonl: %v", err)
	}
	t.Logf("history.jsonl:\n%s", b)
	sys := system(e.Home, e.ConfigDir)
	var out, errb bytes.Buffer
	if code := ccsessions.RunWith(sys, []string{"--swept"}, nil, &out, &errb); code != 0 || out.Len() != 0 {
		t.Fatalf("with the transcript: exit %d, %q %s", code, out.String(), errb.String())
	}

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(strings.TrimSuffix(path, ".jsonl"))
	out.Reset()
	if code := ccsessions.RunWith(sys, []string{"--swept"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rec struct {
		SessionID     string `json:"session_id"`
		Project       string `json:"project"`
		PromptCount   int    `json:"prompt_count"`
		FirstPrompt   string `json:"first_prompt"`
		FirstPromptAt string `json:"first_prompt_at"`
		LastPromptAt  string `json:"last_prompt_at"`
	}
	if err := json.Unmarshal(out.Bytes(), &rec); err != nil {
		t.Fatalf("%v: %q (stderr %s)", err, out.String(), errb.String())
	}
	real, _ := filepath.EvalSymlinks(dir)
	if rec.SessionID != sid || (rec.Project != dir && rec.Project != real) || rec.PromptCount < 2 ||
		rec.FirstPrompt != "swept prompt one" || rec.FirstPromptAt == "" || rec.LastPromptAt < rec.FirstPromptAt {
		t.Errorf("swept record %+v, want session %s in %s with the two prompts", rec, sid, dir)
	}

	var prompts bytes.Buffer
	if code := ccextract.RunWith(sys, []string{"prompts", "--jq", ".text", "-r"}, bytes.NewReader(out.Bytes()), &prompts, &errb); code != 0 {
		t.Fatalf("cc-extract prompts: exit %d: %s", code, errb.String())
	}
	if got := prompts.String(); got != "swept prompt one\nswept prompt two\n" {
		t.Errorf("cc-extract prompts of the swept session: %q", got)
	}
}
