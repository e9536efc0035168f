//go:build unix

package commands_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// commandsDir makes a dir of symlinks, one per command, to this test
// binary: testscript.Main runs the command its name says.
func commandsDir(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"cc-profiles", "cc-sessions", "cc-entries", "cc-extract", "cc-grep", "cc-send", "cc-hook"} {
		if err := os.Symlink(exe, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestSignalsEndBlockedCommands is issue 13's signal class: whatever a
// command is blocked on (a stdin pipe that never ends, a FIFO with no
// writer, a jq loop), SIGINT and SIGTERM end it promptly with 130 or 143.
func TestSignalsEndBlockedCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("starts many processes")
	}
	bin := commandsDir(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	td, _ := filepath.Abs("../../testdata")
	transcript := filepath.Join(td, "corpus/claude/projects/-home-dev-projects-alpha/c0a1f001-0000-4000-8000-000000000001.jsonl")
	rules := filepath.Join(dir, "loop.yaml")
	if err := os.WriteFile(rules, []byte("rules:\n  - events: [PreToolUse]\n    if: 'last(range(1e15)) > 0'\n    decision: deny\n    reason: never\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	payload := `{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}` + "\n"
	loop := "last(range(1e15))"
	cases := []struct {
		name  string
		args  []string
		stdin string // "" keeps stdin an open pipe that never ends
	}{
		{"entries stdin", []string{"cc-entries", "-"}, ""},
		{"entries records", []string{"cc-entries"}, ""},
		{"extract stdin", []string{"cc-extract", "prompts"}, ""},
		{"grep stdin", []string{"cc-grep", "x"}, ""},
		{"sessions stdin", []string{"cc-sessions"}, ""},
		{"hook run stdin", []string{"cc-hook", "run", rules}, ""},
		{"hook parse stdin", []string{"cc-hook", "parse"}, ""},
		{"entries fifo via stdin", []string{"cc-entries", "-"}, fifo},
		{"entries jq loop", []string{"cc-entries", "--jq", loop, transcript}, "/dev/null"},
		{"extract jq loop", []string{"cc-extract", "prompts", "--jq", loop, transcript}, "/dev/null"},
		{"grep jq loop", []string{"cc-grep", "--jq", loop, "corpus"}, "record"},
		{"hook if loop", []string{"cc-hook", "run", rules}, "payload"},
	}
	for _, c := range cases {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(c.name+" "+sig.String(), func(t *testing.T) {
				attempt := func(delay time.Duration) bool {
					cmd := exec.Command(filepath.Join(bin, c.args[0]), c.args[1:]...)
					var stderr bytes.Buffer
					cmd.Stderr = &stderr
					var hold *os.File
					switch c.stdin {
					case "":
						r, w, err := os.Pipe()
						if err != nil {
							t.Fatal(err)
						}
						defer r.Close()
						hold = w
						cmd.Stdin = r
					case "payload":
						cmd.Stdin = strings.NewReader(payload)
					case "record":
						cmd.Stdin = strings.NewReader(`{"transcript_path":"` + transcript + `"}` + "\n")
					case fifo:
						// The shell's `cmd < fifo` opens the FIFO in the child
						// and blocks there; Go cannot, so the FIFO is opened
						// read-write (never blocks) and handed on.
						f, err := os.OpenFile(fifo, os.O_RDWR, 0)
						if err != nil {
							t.Fatal(err)
						}
						defer f.Close()
						cmd.Stdin = f
					default:
						f, err := os.Open(c.stdin)
						if err != nil {
							t.Fatal(err)
						}
						defer f.Close()
						cmd.Stdin = f
					}
					if err := cmd.Start(); err != nil {
						t.Fatal(err)
					}
					if hold != nil {
						defer hold.Close()
					}
					done := make(chan error, 1)
					go func() { done <- cmd.Wait() }()
					// Go's runtime catches every signal from the start, so /proc
					// cannot tell when Main's handler is in place: wait, and
					// retry below when the signal came too early.
					time.Sleep(delay)
					if len(done) > 0 {
						t.Fatalf("ended before the signal: %v; stderr: %s", <-done, stderr.Bytes())
					}
					cmd.Process.Signal(sig)
					sent := time.Now()
					var err error
					select {
					case err = <-done:
					case <-time.After(10 * time.Second):
						cmd.Process.Kill()
						t.Fatalf("still running 10 s after %v; stderr: %s", sig, stderr.Bytes())
					}
					t.Logf("ended %v after %v", sig, time.Since(sent).Round(time.Millisecond))
					var ee *exec.ExitError
					if errors.As(err, &ee) && ee.ExitCode() == -1 {
						return false // killed by the default action: too early
					}
					if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
						t.Errorf("exit %v after %v, want status %d; stderr: %s", err, sig, 128+int(sig), stderr.Bytes())
					}
					return true
				}
				for _, d := range []time.Duration{200 * time.Millisecond, time.Second, 3 * time.Second} {
					if attempt(d) {
						return
					}
				}
				t.Errorf("killed by %v's default action each time: no handler", sig)
			})
		}
	}
}
