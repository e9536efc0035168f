//go:build linux

package commands_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// TestRenderLongLineBounded is issue 36's bounded memory for cc-render:
// a 300 MB line that is not JSON (a sparse file: NUL bytes, no newline
// but the last) renders under a 200 MB data limit (ulimit -d: the heap
// Go maps counts, the address space it only reserves does not), cut and
// said on stderr, never held whole (it took about 4x its size: 1.2 GB).
func TestRenderLongLineBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cc-render and reads a 300 MB line under ulimit -d")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	bin := golden.Build(t, "cc-render")
	tr := filepath.Join(t.TempDir(), "11111111-2222-4333-8444-555555555555.jsonl")
	head := `{"type":"user","uuid":"a","timestamp":"2026-05-02T10:00:00.000Z","sessionId":"11111111-2222-4333-8444-555555555555","message":{"role":"user","content":"before the long line"}}` + "\n"
	tail := "\n" + `{"type":"user","uuid":"b","timestamp":"2026-05-02T10:01:00.000Z","sessionId":"11111111-2222-4333-8444-555555555555","message":{"role":"user","content":"after the long line"}}` + "\n"
	f, err := os.Create(tr)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(head)
	const long = 300 << 20
	if _, err := f.WriteAt([]byte(tail), int64(len(head))+long); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cmd := exec.Command("sh", "-c", "ulimit -d 200000; exec "+filepath.Join(bin, "cc-render")+" md "+tr)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) || err != nil {
		t.Fatalf("cc-render: %v\nstderr: %.600s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "before the long line") || !strings.Contains(stdout.String(), "after the long line") {
		t.Errorf("the records around the long line are not on the page:\n%.600s", stdout.String())
	}
	if !strings.Contains(stderr.String(), ":2: line over 8.0 MB once its texts are cut (292.0 MB more): skipped") {
		t.Errorf("stderr does not name the cut line: %.600q", stderr.String())
	}
}
