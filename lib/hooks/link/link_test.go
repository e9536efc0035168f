package link

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccpipe/ccpipe/lib/hooks"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/registry"
	"github.com/ccpipe/ccpipe/lib/sessions"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

func event(t *testing.T, json string) hooks.Event {
	t.Helper()
	ev, err := hooks.Parse([]byte(json))
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func TestTranscript(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	os.WriteFile(path, []byte(`{"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}
{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}
`), 0o644)
	ev := event(t, fmt.Sprintf(`{"hook_event_name":"Stop","session_id":"s","transcript_path":%q}`, path))
	var types []string
	d, err := Transcript(ev, transcript.Options{Types: []string{"assistant"}}, func(l *transcript.Line) error {
		types = append(types, string(l.Header.Type))
		return nil
	})
	if err != nil || len(types) != 1 || types[0] != "assistant" || d.Lines != 2 {
		t.Errorf("got %v %+v %v", types, d, err)
	}
	_, err = Transcript(event(t, `{"hook_event_name":"Stop","transcript_path":""}`), transcript.Options{}, func(*transcript.Line) error { return nil })
	if !errors.Is(err, ErrNoTranscript) {
		t.Errorf("empty path: %v", err)
	}
	sub := event(t, `{"hook_event_name":"SubagentStop","agent_transcript_path":"/nonexistent/agent-a.jsonl"}`).(*hooks.SubagentStopEvent)
	if _, err := AgentTranscript(sub, transcript.Options{}, func(*transcript.Line) error { return nil }); err == nil {
		t.Error("missing agent transcript: no error")
	}
}

func TestActiveSession(t *testing.T) {
	cfg := t.TempDir()
	sdir := filepath.Join(cfg, "sessions")
	os.MkdirAll(sdir, 0o755)
	pid := os.Getpid()
	start, err := registry.LocalHost().ProcStart(pid)
	if err != nil {
		t.Skip("no /proc start time here:", err)
	}
	rec := fmt.Sprintf(`{"pid":%d,"sessionId":"sess-1","cwd":"/tmp","startedAt":1700000000000,"procStart":%q,"version":"2.1.328","kind":"interactive","name":"proj-a1"}`, pid, start)
	os.WriteFile(filepath.Join(sdir, fmt.Sprintf("%d.json", pid)), []byte(rec), 0o644)
	profs := []profiles.Profile{{Name: "t", ConfigDir: cfg, Exists: true, SessionsDir: sdir, ProjectsDir: filepath.Join(cfg, "projects")}}

	a, err := ActiveSession(context.Background(), event(t, `{"hook_event_name":"Stop","session_id":"sess-1"}`), profs)
	if err != nil || a.Pid != pid || a.Name != "proj-a1" {
		t.Fatalf("got %+v, %v", a, err)
	}
	_, err = ActiveSession(context.Background(), event(t, `{"hook_event_name":"Stop","session_id":"other"}`), profs)
	var nf *sessions.NotFoundError
	if !errors.As(err, &nf) {
		t.Errorf("unknown session: %v", err)
	}
}
