package render

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// metaOf renders path and returns its Meta.
func metaOf(t *testing.T, path string) Meta {
	t.Helper()
	var metas []Meta
	d, err := NewDoc(io.Discard, Options{Format: "md", Done: func(m Meta) { metas = append(metas, m) }})
	if err != nil {
		t.Fatal(err)
	}
	agents, _ := AgentsOf(path)
	if err := d.Session(context.Background(), Session{Path: path, Agents: agents}); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if len(metas) != 1 {
		t.Fatalf("%d metas", len(metas))
	}
	return metas[0]
}

// A fork's page shows the conversation it copied but bills only its own
// messages (the copies count in the original's page); a fork whose only
// call failed bills none (issue 23 item 1, testdata/corpus-fork).
func TestForkPageBillsItsOwn(t *testing.T) {
	dir := "../../testdata/corpus-fork/claude/projects/-home-dev-projects-forks/"
	for id, want := range map[string]int{"f0a1f001": 5, "f0a1f002": 1, "f0a1f003": 1, "f0a1f004": 0} {
		path := filepath.Join(dir, id+"-0000-4000-8000-"+strings.Repeat("0", 11)+id[7:]+".jsonl")
		if m := metaOf(t, path); m.Tokens.Messages != want {
			t.Errorf("%s: %d messages billed, want %d", id, m.Tokens.Messages, want)
		}
		if page, _ := renderPath(t, "md", path); !strings.Contains(page, "First done.") {
			t.Errorf("%s: the page lacks the copied conversation", id)
		}
	}
}

// A <synthetic> record is no API call, with or without isApiErrorMessage.
func TestSyntheticNotBilled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "33333333-2222-4333-8444-555555555555.jsonl")
	lines := `{"type":"user","uuid":"u1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"one"}}
{"type":"assistant","uuid":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"id":"m1","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"No response requested."}],"usage":{"input_tokens":0,"output_tokens":0}}}
{"type":"assistant","uuid":"a2","timestamp":"2026-01-01T00:00:03.000Z","message":{"id":"m2","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":10,"output_tokens":5}}}
`
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	if m := metaOf(t, path); m.Tokens.Messages != 1 {
		t.Errorf("%d messages billed, want 1", m.Tokens.Messages)
	}
}

// A Stop block by a JSON reply is written as a feedback prompt and a
// hook_blocking_error attachment: one entry on the page (issue 23 item 3).
func TestStopBlockOneEntry(t *testing.T) {
	path := filepath.Join(t.TempDir(), "44444444-2222-4333-8444-555555555555.jsonl")
	lines := `{"type":"user","uuid":"u0","timestamp":"2026-12-01T20:47:37.000Z","sessionId":"s","message":{"role":"user","content":"go"}}
{"type":"user","isMeta":true,"message":{"role":"user","content":"Stop hook feedback:\nBLOCK-REASON-stop-json"},"uuid":"u1","timestamp":"2026-12-01T20:47:37.580Z","sessionId":"s"}
{"type":"attachment","attachment":{"type":"hook_blocking_error","hookName":"Stop","toolUseID":"T1","hookEvent":"Stop","blockingError":{"blockingError":"BLOCK-REASON-stop-json","command":"/h/stop.sh"}},"uuid":"u2","timestamp":"2026-12-01T20:47:37.579Z","sessionId":"s"}
`
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"md", "html"} {
		page, _ := renderPath(t, format, path)
		if n := strings.Count(page, "BLOCK-REASON-stop-json"); n != 1 {
			t.Errorf("%s: the block shows %d times:\n%s", format, n, page)
		}
	}
	if m := metaOf(t, path); m.Failures != 1 {
		t.Errorf("%d failures counted, want 1", m.Failures)
	}
}
