package ccstatusline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/fulldisk"
)

// A log whose last line was cut (an earlier crash or full disk) does not
// swallow the next record: it starts on a line of its own.
func TestLogAfterPartialLine(t *testing.T) {
	log := filepath.Join(t.TempDir(), "p.ndjson")
	os.WriteFile(log, []byte(`{"model":{"id":"cut`), 0o600)
	if code, _, errs := run(t, []byte(`{"model":{"id":"x"}}`), "--log", log, "--cache-dir", t.TempDir()); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(log)
	if string(b) != "{\"model\":{\"id\":\"cut\n{\"model\":{\"id\":\"x\"}}\n" {
		t.Errorf("log %q", b)
	}
}

// On a full disk --log leaves no partial line: a short write is cut back
// off, and the next record after space is freed is whole and alone.
func TestLogFullDisk(t *testing.T) {
	dir := fulldisk.Mount(t, "16k")
	log := filepath.Join(dir, "p.ndjson")
	os.WriteFile(log, []byte("{\"first\":1}\n"), 0o600) // one page, mostly free
	fulldisk.Fill(t, dir)
	big := []byte(`{"model":{"id":"` + strings.Repeat("m", 6000) + `"}}`)
	code, out, errs := run(t, big, "--log", log, "--cache-dir", t.TempDir())
	if code != 0 || out == "" {
		t.Errorf("a full log disk still prints the line: exit %d, %q, %s", code, out, errs)
	}
	if !strings.Contains(errs, "no space left") {
		t.Errorf("stderr %q, want the disk-full warning", errs)
	}
	b, _ := os.ReadFile(log)
	if string(b) != "{\"first\":1}\n" {
		t.Fatalf("log after a short write: %q...", b[:min(len(b), 80)])
	}
	os.Remove(filepath.Join(dir, ".filler"))
	run(t, []byte(`{"model":{"id":"x"}}`), "--log", log, "--cache-dir", t.TempDir())
	if b, _ := os.ReadFile(log); string(b) != "{\"first\":1}\n{\"model\":{\"id\":\"x\"}}\n" {
		t.Errorf("log %q", b)
	}
}

// A cache dir on a full disk leaves no temporary files behind.
func TestCacheFullDisk(t *testing.T) {
	_, tr, _, write := twoSessions(t)
	write(tr, assistant("m1", "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 1000000))
	cache := fulldisk.Mount(t, "16k")
	fulldisk.Fill(t, cache)
	for range 3 {
		code, out, errs := run(t, realPayload(t, tr, nil), "--cache-dir", cache, "--now", "2026-05-02T12:46:00Z")
		if code != 0 || !strings.Contains(out, "$2.00 block") {
			t.Fatalf("exit %d, %q, %s", code, out, errs)
		}
	}
	ents, _ := os.ReadDir(cache)
	var names []string
	for _, e := range ents {
		if e.Name() != ".filler" {
			names = append(names, e.Name())
		}
	}
	if len(names) > 0 {
		t.Errorf("left in the full cache dir: %v", names)
	}
}
