package ccsessions

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"io"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// TestMissing (issue 35): cc-sessions --missing lists the sessions Claude
// Code ran that left no readable transcript, from each source, with its
// likely cause: a recent history.jsonl session with no transcript
// (not_written: a failed write or a removed file), an old one
// (swept), a registry record with no transcript (not_written) and a
// bridge's (bridge_markers_only), a transcript of markers only
// (markers_only) and one with a bridge-session marker; a session with a
// conversation is not listed. NDJSON into a pipe, a table on a terminal.
func TestMissing(t *testing.T) {
	cfg := t.TempDir()
	const (
		full    = "11111111-0000-4000-8000-000000000001"
		recent  = "11111111-0000-4000-8000-000000000002"
		old     = "11111111-0000-4000-8000-000000000003"
		running = "11111111-0000-4000-8000-000000000004"
		bridged = "11111111-0000-4000-8000-000000000005"
		markers = "11111111-0000-4000-8000-000000000006"
		bridgeM = "11111111-0000-4000-8000-000000000007"
	)
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	write := func(rel, body string) {
		p := filepath.Join(cfg, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		at := now.Add(-30 * time.Minute) // a marker-only file's time is its mtime
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	proj := "projects/-home-dev-p/"
	write(proj+full+".jsonl", `{"type":"user","sessionId":"`+full+`","cwd":"/home/dev/p","timestamp":"2026-12-01T10:00:00.000Z","uuid":"u1","message":{"role":"user","content":"hi"}}`+"\n")
	write(proj+markers+".jsonl", `{"type":"mode","mode":"normal","sessionId":"`+markers+`"}`+"\n"+`{"type":"last-prompt","lastPrompt":"x","sessionId":"`+markers+`"}`+"\n")
	write(proj+bridgeM+".jsonl", `{"type":"bridge-session","sessionId":"`+bridgeM+`"}`+"\n")
	// 1796119200000 is 2026-12-01T10:00:00Z; 1790000000000 is 2026-09-21.
	write("history.jsonl", `{"display":"hi","timestamp":1796119200000,"project":"/home/dev/p","sessionId":"`+full+`"}`+"\n"+
		`{"display":"nested run","timestamp":1796119200000,"project":"/home/dev/p","sessionId":"`+recent+`"}`+"\n"+
		`{"display":"again","timestamp":1796119260000,"project":"/home/dev/p","sessionId":"`+recent+`"}`+"\n"+
		`{"display":"long ago","timestamp":1790000000000,"project":"/home/dev/q","sessionId":"`+old+`"}`+"\n")
	write("sessions/4242.json", `{"pid":4242,"sessionId":"`+running+`","cwd":"/home/dev/r","startedAt":1796115600000}`)
	write("sessions/4343.json", `{"pid":4343,"sessionId":"`+bridged+`","cwd":"/home/dev/r","startedAt":1796112000000,"bridgeSessionId":"b-1"}`)
	var out, errb bytes.Buffer
	code := RunWith(testSys(cfg, now, 0), []string{"--missing"}, nil, &out, &errb)
	got := golden.Output(code, errb.String(), golden.Corpus(out.String(), cfg))
	golden.Check(t, filepath.Join("testdata", "missing.golden"), got)
	for _, id := range []string{recent, old, running, bridged, markers, bridgeM} {
		if !strings.Contains(out.String(), id) {
			t.Errorf("%s not listed", id)
		}
	}
	if strings.Contains(out.String(), full) {
		t.Errorf("%s has a transcript, listed", full)
	}
	out.Reset()
	errb.Reset()
	code = RunWith(testSys(cfg, now, 160), []string{"--missing"}, nil, &out, &errb)
	golden.Check(t, filepath.Join("testdata", "missing_table.golden"), golden.Output(code, errb.String(), out.String()))
}

// testSys is a System on config dir cfg at now, stdout a terminal width
// wide (0: a pipe).
func testSys(cfg string, now time.Time, width int) cli.System {
	return cli.System{Home: "/nonexistent-home", Now: func() time.Time { return now },
		Getenv:   func(k string) string { return map[string]string{"CLAUDE_CONFIG_DIR": cfg, "NO_COLOR": "1"}[k] },
		Terminal: func(io.Writer) (int, bool) { return width, width > 0 }}
}
