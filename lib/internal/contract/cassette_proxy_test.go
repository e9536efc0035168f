package contract

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/cassette/proxy"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// proxyRun runs one cc-cassette record/replay/fork of argv in dir and
// returns the exit code, stdout and stderr.
func proxyRun(t *testing.T, e *claudetest.Env, r proxy.Run) (int, string, string) {
	t.Helper()
	var out bytes.Buffer
	var errb lockedBuffer // the child's stderr and the session's messages meet here
	r.Env, r.Stdout, r.Stderr = e.Environ(), &out, &errb
	code, err := r.Exec()
	if err != nil && !proxy.IsQuiet(err) {
		t.Fatalf("%s: %v\nstderr: %s", r.Mode, err, errb.String())
	}
	return code, out.String(), errb.String()
}

// lockedBuffer is a bytes.Buffer for two writers (not an io.ReaderFrom,
// so exec copies the child's output with Write under the lock).
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func readCassette(t *testing.T, path string) (cassette.Cassette, []proxy.Step) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cs, err := cassette.ReadAll(f)
	if err != nil || len(cs) != 1 {
		t.Fatalf("%s: %d cassettes, %v", path, len(cs), err)
	}
	steps, err := proxy.Load(cs[0])
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return cs[0], steps
}

// Proofs 1-4 of cc-cassette record/replay/fork against the real CLI:
// record a Bash call that writes a file, replay it offline (the file is
// written again), replay a changed prompt (exit 1 naming messages, fast),
// fork at the Bash result with a scripted reply.
func TestCassetteRecordReplayFork(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("Writing the file."), fakeapi.ToolUse("Bash", map[string]any{"command": "echo hello > out.txt && echo wrote-it"})}},
		{Match: "wrote-it", Blocks: []fakeapi.Block{fakeapi.Text("The file is written.")}},
	}}})
	dir := e.Project("rec")
	argv := func(prompt string) []string { return []string{e.Bin, "-p", prompt, "--allowedTools", "Bash"} }
	run := filepath.Join(e.Root, "run.ndjson")
	file := filepath.Join(dir, "out.txt")

	// 1. record
	code, stdout, stderr := proxyRun(t, e, proxy.Run{Mode: proxy.Record, Command: argv("write the file"), Dir: dir, Out: run})
	if code != 0 || !strings.Contains(stdout, "The file is written.") {
		t.Fatalf("record: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "hello\n" {
		t.Fatalf("record: out.txt: %q %v", b, err)
	}
	parent, steps := readCassette(t, run)
	var types []string
	toolResult := -1
	for i, s := range steps {
		types = append(types, s.Type)
		if s.Type == "tool_result" {
			toolResult = i
		}
	}
	if got := strings.Join(types, ","); got != "model_input,model_output,tool_call,tool_result,model_input,model_output,metadata" {
		t.Fatalf("recorded steps %s", got)
	}
	if r := steps[toolResult].Payload.(map[string]any); r["toolName"] != "Bash" || r["result"] != "wrote-it" {
		t.Errorf("tool_result %v", r)
	}
	raw, _ := os.ReadFile(run)
	for _, bad := range []string{claudetest.TestKey, "toolu_", "msg_fake"} {
		if bytes.Contains(raw, []byte(bad)) {
			t.Errorf("the cassette holds %q", bad)
		}
	}

	// 2. replay offline: the fake API is gone, the file is written again.
	seen := len(e.API.Requests())
	_ = e.API.Close()
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	code, stdout2, stderr := proxyRun(t, e, proxy.Run{Mode: proxy.Replay, Command: argv("write the file"), Dir: dir, Parent: &parent})
	if code != 0 || stdout2 != stdout {
		t.Fatalf("replay: exit %d\nstdout: %q, recorded %q\nstderr: %s", code, stdout2, stdout, stderr)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "hello\n" {
		t.Errorf("replay: out.txt: %q %v", b, err)
	}
	if n := len(e.API.Requests()); n != seen {
		t.Errorf("replay sent %d requests upstream", n-seen)
	}

	// 3. a changed prompt diverges at once, and Claude Code does not retry for minutes.
	start := time.Now()
	code, stdout, stderr = proxyRun(t, e, proxy.Run{Mode: proxy.Replay, Command: argv("write two files"), Dir: dir, Parent: &parent})
	if took := time.Since(start); code != 1 || !strings.Contains(stderr, "replay diverged at step 0, messages[0].content[1].text") ||
		!strings.Contains(stderr, `recorded: "write the file"`) || took > 30*time.Second {
		t.Errorf("changed prompt: exit %d after %v\nstdout: %s\nstderr: %s", code, took, stdout, stderr)
	}

	// 4. fork at the Bash result with a scripted reply.
	child := filepath.Join(e.Root, "what-if.ndjson")
	code, stdout, stderr = proxyRun(t, e, proxy.Run{Mode: proxy.Fork, Command: argv("write the file"), Dir: dir, Parent: &parent,
		ForkAt: toolResult, ForkSet: "tests pass", Script: []any{map[string]any{"type": "final_answer", "text": "Forked: the tests pass."}}, Out: child})
	if code != 0 || !strings.Contains(stdout, "Forked: the tests pass.") {
		t.Fatalf("fork: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	cc, csteps := readCassette(t, child)
	if id, _ := cc.Header.GetString("parentId"); id != "run" {
		t.Errorf("parentId %q", id)
	}
	if id, _ := cc.Header.GetString("forkedFromStepId"); id != "run:"+strconv.Itoa(toolResult) {
		t.Errorf("forkedFromStepId %q", id)
	}
	for i := range toolResult {
		ph, _ := parent.Steps[i].GetString("hash")
		ch, _ := cc.Steps[i].GetString("hash")
		if ph != ch {
			t.Errorf("step %d not shared: %s vs %s", i, ph, ch)
		}
	}
	if r := csteps[toolResult].Payload.(map[string]any); r["result"] != "tests pass" {
		t.Errorf("fork step %v", r)
	}
	in := csteps[toolResult+1].Payload.(map[string]any)
	msgs := in["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)["content"].([]any)[0].(map[string]any)
	if csteps[toolResult+1].Type != "model_input" || last["result"] != "tests pass" {
		t.Errorf("model input after the fork carries %v", last)
	}
}
