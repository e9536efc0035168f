package cccassette

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/fulldisk"
)

const alphaTranscript = "../../../testdata/corpus/claude/projects/-home-dev-projects-alpha/c0a1f001-0000-4000-8000-000000000001.jsonl"

// import --out-dir on a full disk: the good cassette already there stays
// whole, no temporary file is left, the failure is reported, exit 1.
func TestImportOutDirFullDisk(t *testing.T) {
	dir := fulldisk.Mount(t, "64k")
	if code, _, errs := run(t, "", "import", "--out-dir", dir, alphaTranscript); code != 0 {
		t.Fatalf("first import: %d %s", code, errs)
	}
	p := filepath.Join(dir, "c0a1f001-0000-4000-8000-000000000001.ndjson")
	good, _ := os.ReadFile(p)
	fulldisk.Fill(t, dir)
	code, _, errs := run(t, "", "import", "--with-usage", "--keep-thinking", "--out-dir", dir, alphaTranscript)
	if code != 1 || !strings.Contains(errs, "no space left on device") || strings.Contains(errs, ".tmp") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if b, _ := os.ReadFile(p); string(b) != string(good) {
		t.Errorf("the cassette became %d bytes (was %d)", len(b), len(good))
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(m) > 0 {
		t.Errorf("left %v", m)
	}
}

// record --out to a symlink writes the link's target and keeps the link.
func TestRecordOutSymlink(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	target := filepath.Join(dir, "real.ndjson")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.ndjson")
	os.Symlink("real.ndjson", link)
	run(t, "", "record", "--out", link, "--", "sh", "-c", "exit 7")
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("--out replaced the symlink with a %v", fi.Mode())
	}
	if b, _ := os.ReadFile(target); !strings.HasPrefix(string(b), `{"version":2`) {
		t.Errorf("the link's target holds %q", b)
	}
}

// record with the upstream unreachable (a new user's first try): the
// child's model call fails, and record says so and exits 1, not
// "(0 steps)" and 0 (issue 31 #9).
func TestRecordUnreachableUpstream(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	dir := t.TempDir()
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	rec := filepath.Join(dir, "x.ndjson")
	call := `curl -s -o /dev/null -X POST -H 'content-type: application/json' -d '{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"x","input_schema":{"type":"object"}}]}' "$ANTHROPIC_BASE_URL/v1/messages"; exit 0`
	code, _, errs := run(t, "", "record", "--out", rec, "--", "sh", "-c", call)
	if code != 1 || !strings.Contains(errs, "did not recover from: unreachable") {
		t.Errorf("exit %d\n%s", code, errs)
	}
	// No model call at all: exit 1 too.
	code, _, errs = run(t, "", "record", "--out", rec, "--", "true")
	if code != 1 || !strings.Contains(errs, "recorded no model call: the command made no model call") {
		t.Errorf("no call: exit %d\n%s", code, errs)
	}
}

// convert's non-finite number error names the file and the line.
func TestConvertNonFiniteNamesFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nf.ndjson")
	os.WriteFile(p, []byte(`{"version":2,"id":"x","createdAt":1}`+"\n"+`{"index":0,"type":"metadata","timestamp":1e400,"payload":{},"prevHash":null,"hash":"x"}`+"\n"), 0o644)
	code, _, errs := run(t, "", "convert", p)
	if code != 1 || !strings.Contains(errs, p+":2: non-finite number") {
		t.Errorf("exit %d, %q", code, errs)
	}
}

// import refuses a cassette over --max-bytes before writing anything.
func TestImportMaxBytes(t *testing.T) {
	code, out, errs := run(t, "", "import", "--max-bytes", "5000", alphaTranscript)
	if code != 1 || out != "" || !strings.Contains(errs, "refused: cassette c0a1f001-0000-4000-8000-000000000001 would be over 5000 bytes (--max-bytes") {
		t.Errorf("exit %d, %d bytes out, %q", code, len(out), errs)
	}
	if code, out, _ := run(t, "", "import", "--max-bytes", "0", alphaTranscript); code != 0 || !strings.HasPrefix(out, `{"version":2`) {
		t.Errorf("--max-bytes 0: exit %d", code)
	}
	if code, _, errs := run(t, "", "import", "--max-bytes", "-1", alphaTranscript); code != 2 || !strings.Contains(errs, "--max-bytes must be 0") {
		t.Errorf("--max-bytes -1: exit %d %q", code, errs)
	}
}

// record --out into a directory that cannot take the cassette (missing,
// a file, read-only) fails before the command starts: the run's work is
// not done for a recording that would be lost at its end (issue 36).
func TestRecordOutCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o600)
	outs := []string{filepath.Join(dir, "missing", "run.ndjson"), filepath.Join(dir, "file", "run.ndjson")}
	ro := fulldisk.Mount(t, "16k")
	if out, err := exec.Command("mount", "-o", "remount,ro", ro).CombinedOutput(); err == nil {
		outs = append(outs, filepath.Join(ro, "run.ndjson"))
	} else {
		t.Logf("no read-only case: cannot remount read-only: %v %s", err, out)
	}
	for _, out := range outs {
		marker := filepath.Join(dir, "ran")
		code, _, errs := run(t, "", "record", "--out", out, "--", "sh", "-c", "touch "+marker)
		if code != 1 || !strings.Contains(errs, "cc-cassette: writing "+out) {
			t.Errorf("%s: exit %d, stderr %q", out, code, errs)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("%s: the command ran", out)
			os.Remove(marker)
		}
	}
}
