package contract

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// The SessionEnd hook that `cc-entries --archive DIR --print-settings`
// prints, written to the settings file it names on stderr
// ($CLAUDE_CONFIG_DIR/settings.json) as a user would: Claude Code pipes the
// hook payload (a record with transcript_path) to the command, and the
// session is archived as it ended: the copy decompresses to the transcript
// byte for byte, and archiving it again finds it up to date (the hook
// wrote the copy's sidecar too).
func TestSessionEndHookArchives(t *testing.T) {
	Require(t)
	t.Parallel()
	bin := filepath.Join(golden.Build(t, "cc-entries"), "cc-entries")
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("archive-marker")}},
	}}})
	dir := e.Project("archived")
	arch := filepath.Join(e.Root, "cc-archive")

	// The settings as a user would install them, DIR given relative to
	// the cwd (the hook runs in the session's dir: it must be absolute).
	ps := exec.Command(bin, "--archive", "cc-archive", "--print-settings")
	ps.Dir = e.Root
	ps.Env = []string{"HOME=" + e.Home, "CLAUDE_CONFIG_DIR=" + e.ConfigDir, "PATH=" + os.Getenv("PATH")}
	var stdout, stderr bytes.Buffer
	ps.Stdout, ps.Stderr = &stdout, &stderr
	if err := ps.Run(); err != nil {
		t.Fatalf("cc-entries --print-settings: %v: %s", err, stderr.String())
	}
	settingsPath := filepath.Join(e.ConfigDir, "settings.json")
	if !strings.Contains(stderr.String(), settingsPath) || !json.Valid(stdout.Bytes()) {
		t.Fatalf("--print-settings: stdout not JSON or stderr does not name %s: %s", settingsPath, stderr.String())
	}
	if !strings.Contains(stdout.String(), bin+" --archive "+arch+" ") {
		t.Fatalf("--print-settings: the hook does not run %s --archive %s: %s", bin, arch, stdout.String())
	}
	if err := os.WriteFile(settingsPath, stdout.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "go"})
	if res.ExitCode != 0 {
		t.Fatalf("claude -p: exit %d: %s", res.ExitCode, res.Stderr)
	}
	var copyPath string
	claudetest.Poll(20*time.Second, func() (bool, error) {
		m, _ := filepath.Glob(filepath.Join(arch, "*", "*.jsonl.zst"))
		if len(m) == 1 {
			if _, err := os.Stat(m[0] + ".idx"); err == nil { // the sidecar is written last
				copyPath = m[0]
			}
		}
		return copyPath != "", nil
	})
	if copyPath == "" {
		t.Fatalf("no archive copy after SessionEnd (claude stderr: %s)", res.Stderr)
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
	again, err := exec.Command(bin, "--archive", arch, e.TranscriptPath(dir, sid)).Output()
	if err != nil || !strings.Contains(string(again), `"status":"up_to_date"`) {
		t.Errorf("archiving the ended session again: %v: %s", err, again)
	}
}
