//go:build linux

package commands_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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

// TestRedactHookBounded is issue 36's bounded memory for cc-redact
// --hook: a PostToolUse payload of 100 MB (a Bash output with a key in it
// and one with terminal colour inside it, as grep --color=always prints
// it) is answered through a pipe under a data limit of 3x the payload,
// exit 0, both keys masked. It took 19x its size (a 200 MB payload: 4 GB)
// and, out of memory, exited 2: a block, which its help says never.
func TestRedactHookBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cc-redact and masks a 100 MB payload under ulimit -d")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	bin := golden.Build(t, "cc-redact")
	key := "sk-ant-api03-" + strings.Repeat("A1b2C3d4E5f6G7h8I9j0", 5) + "-AAAAAA"
	coloured := `KEY=\u001b[01;31m\u001b[K` + key[:20] + `\u001b[m` + key[20:] + `\n`
	payload := filepath.Join(t.TempDir(), "payload.json")
	f, err := os.Create(payload)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat(`an ordinary line of output, words and numbers 1234567890\n`, 1000)
	f.WriteString(`{"session_id":"s","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"Bash",` +
		`"tool_input":{"command":"cat big.log"},"tool_response":{"stdout":"`)
	const size = 100 << 20
	for n := 0; n < size/2; n += len(line) {
		f.WriteString(line)
	}
	f.WriteString(`ANTHROPIC_API_KEY=` + key + `\n` + coloured)
	for n := 0; n < size/2; n += len(line) {
		f.WriteString(line)
	}
	f.WriteString(`","stderr":"","interrupted":false,"isImage":false},"tool_use_id":"toolu_1"}`)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	limit := 3 * size >> 10 // KiB
	cmd := exec.Command("sh", "-c", fmt.Sprintf("ulimit -d %d; cat %s | %s --hook", limit, payload, filepath.Join(bin, "cc-redact")))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cc-redact --hook under ulimit -d %d: %v (exit 2 is a block)\nstderr: %.600s", limit, err, stderr.String())
	}
	out := stdout.Bytes()
	var reply struct {
		SystemMessage string `json:"systemMessage"`
		Specific      struct {
			Output struct {
				Stdout string `json:"stdout"`
			} `json:"updatedToolOutput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &reply); err != nil {
		t.Fatalf("the reply is not JSON: %v\n%.300s", err, out)
	}
	if !strings.Contains(reply.SystemMessage, "masked 2 secrets (anthropic-api-key)") {
		t.Errorf("systemMessage: %q", reply.SystemMessage)
	}
	got := reply.Specific.Output.Stdout
	if strings.Contains(got, key[20:]) || !strings.Contains(got, "ANTHROPIC_API_KEY=[REDACTED:anthropic-api-key]\n") ||
		!strings.Contains(got, "KEY=\x1b[01;31m\x1b[K[REDACTED:anthropic-api-key]\n") {
		i := strings.Index(got, "ANTHROPIC_API_KEY")
		t.Errorf("a key is not masked in the reply: %q", got[max(i, 0):min(i+400, len(got))])
	}
	chunks := (size/2 + len(line) - 1) / len(line) // per half
	want := 2*chunks*(len(line)-1000) + len("ANTHROPIC_API_KEY=[REDACTED:anthropic-api-key]\n") + len("KEY=\x1b[01;31m\x1b[K[REDACTED:anthropic-api-key]\n")
	if len(got) != want {
		t.Errorf("the masked output is %d bytes, want %d (the output with 2 keys masked)", len(got), want)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %.300s", stderr.String())
	}
}
