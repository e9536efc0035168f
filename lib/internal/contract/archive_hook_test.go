package contract

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// The SessionEnd hook documented for cc-entries --archive: Claude Code
// pipes the hook payload (a record with transcript_path) to the command,
// and the session is archived as it ended: the copy decompresses to the
// transcript byte for byte.
func TestSessionEndHookArchives(t *testing.T) {
	Require(t)
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "cc-entries")
	if out, err := exec.Command("go", "build", "-o", bin, "../../../cmd/cc-entries").CombinedOutput(); err != nil {
		t.Fatalf("go build cc-entries: %v\n%s", err, out)
	}
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("archive-marker")}},
	}}})
	dir := e.Project("archived")
	arch := filepath.Join(e.Root, "cc-archive")
	log := filepath.Join(e.Root, "archive.log")
	hook := map[string]any{"hooks": []any{map[string]any{"type": "command",
		"command": bin + " --archive " + arch + " >" + log + " 2>&1"}}}
	res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "go", Settings: map[string]any{"hooks": map[string]any{"SessionEnd": []any{hook}}}})
	if res.ExitCode != 0 {
		t.Fatalf("claude -p: exit %d: %s", res.ExitCode, res.Stderr)
	}
	var copyPath string
	claudetest.Poll(20*time.Second, func() (bool, error) {
		m, _ := filepath.Glob(filepath.Join(arch, "*", "*.jsonl.zst"))
		if len(m) == 1 {
			copyPath = m[0]
		}
		return copyPath != "", nil
	})
	b, _ := os.ReadFile(log)
	t.Logf("hook output: %s", b)
	if copyPath == "" {
		t.Fatalf("no archive copy after SessionEnd")
	}
	if !strings.Contains(string(b), `"status":"written"`) {
		t.Errorf("hook output: %s", b)
	}
	sid := transcript.SessionID(copyPath)
	live, err := os.ReadFile(e.TranscriptPath(dir, sid))
	if err != nil {
		t.Fatal(err)
	}
	r, err := transcript.Open(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, _ := io.ReadAll(r)
	if !bytes.Equal(got, live) || !bytes.Contains(got, []byte("archive-marker")) {
		t.Errorf("the copy (%d bytes) is not the transcript (%d bytes)", len(got), len(live))
	}
}
