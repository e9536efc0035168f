package ccrender

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/commands/ccentries"
)

// A title set late in the session (here: -n on a --resume, written in the
// last run and not re-appended) heads the page, read from the transcript,
// from its cc-entries lines, and from those lines with --branch, which
// drops the title records (then the source transcript's title).
func TestTitleSetLater(t *testing.T) {
	const id = "7a000000-0000-4000-8000-000000000001"
	dir := filepath.Join(t.TempDir(), "projects", "-w")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, id+".jsonl")
	lines := []string{
		`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"` + id + `","cwd":"/w","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"first"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"` + id + `","timestamp":"2026-01-01T00:00:01.000Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"one"}]}}`,
		`{"type":"last-prompt","lastPrompt":"first","sessionId":"` + id + `"}`,
		`{"type":"ai-title","aiTitle":"Old generated","sessionId":"` + id + `"}`,
		`{"type":"custom-title","customTitle":"Named later","sessionId":"` + id + `"}`,
		`{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"` + id + `","cwd":"/w","timestamp":"2026-01-01T00:01:00.000Z","message":{"role":"user","content":"second"}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"` + id + `","timestamp":"2026-01-01T00:01:01.000Z","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"two"}]}}`,
		`{"type":"last-prompt","lastPrompt":"second","sessionId":"` + id + `"}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	entries := func(args ...string) string {
		var out strings.Builder
		if code := ccentries.Run(append(args, path), nil, &out, os.Stderr); code != 0 {
			t.Fatalf("cc-entries exit %d", code)
		}
		return out.String()
	}
	for name, in := range map[string]struct {
		stdin string
		args  []string
	}{
		"transcript":         {"", []string{"md", path}},
		"entries":            {entries(), []string{"md"}},
		"branch with source": {entries("--branch", "--with-source"), []string{"md"}},
		"html":               {"", []string{"html", path}},
	} {
		code, out, errs := run(t, in.stdin, in.args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		if !strings.Contains(out, "Named later") || strings.Contains(out, "# Session "+id) || strings.Contains(out, "Old generated") {
			t.Errorf("%s: the page is not headed by the newest title:\n%.300s", name, out)
		}
	}
}
