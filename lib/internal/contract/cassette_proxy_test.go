package contract

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
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
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// buildCassette builds cmd/cc-cassette once for the test binary.
var buildCassette = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "cc-cassette-bin")
	if err != nil {
		return "", err
	}
	if err := golden.BuildTo(dir, "cc-cassette"); err != nil {
		return "", err
	}
	return filepath.Join(dir, "cc-cassette"), nil
})

// ccCassette runs the cc-cassette binary in dir with the test machine's
// environment and returns the exit code, stdout and stderr.
func ccCassette(t *testing.T, e *claudetest.Env, dir string, args ...string) (int, string, string) {
	t.Helper()
	return ccCassetteEnv(t, e, dir, nil, args...)
}

// ccCassetteEnv is ccCassette with more KEY=VALUE after the machine's.
func ccCassetteEnv(t *testing.T, e *claudetest.Env, dir string, env []string, args ...string) (int, string, string) {
	t.Helper()
	bin, err := buildCassette()
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, append(e.Environ(), env...), &out, &errb
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("cc-cassette %s: %v", args[0], err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
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
	claude := func(prompt string) []string { return []string{"--", e.Bin, "-p", prompt, "--allowedTools", "Bash"} }
	args := func(a ...string) []string { return a }
	run := filepath.Join(e.Root, "run.ndjson")
	file := filepath.Join(dir, "out.txt")

	// 1. record
	code, stdout, stderr := ccCassette(t, e, dir, append(args("record", "--out", run), claude("write the file")...)...)
	if code != 0 || !strings.Contains(stdout, "The file is written.") {
		t.Fatalf("record: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "hello\n" {
		t.Fatalf("record: out.txt: %q %v", b, err)
	}
	if code, out, errs := ccCassette(t, e, dir, "verify", run); code != 0 {
		t.Fatalf("verify %s: exit %d\n%s%s", run, code, out, errs)
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
	code, stdout2, stderr := ccCassette(t, e, dir, append(args("replay", run), claude("write the file")...)...)
	if code != 0 || stdout2 != stdout {
		t.Fatalf("replay: exit %d\nstdout: %q, recorded %q\nstderr: %s", code, stdout2, stdout, stderr)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "hello\n" {
		t.Errorf("replay: out.txt: %q %v", b, err)
	}
	if n := len(e.API.Requests()); n != seen {
		t.Errorf("replay sent %d requests upstream", n-seen)
	}

	// The volatile-text rules let the same run replay from another dir
	// (working directory and memory path differ in the system prompt).
	other := e.Project("elsewhere")
	if code, _, stderr := ccCassette(t, e, other, append(args("replay", run), claude("write the file")...)...); code != 0 {
		t.Errorf("replay in another dir: exit %d\n%s", code, stderr)
	}

	// 3. a changed prompt diverges at once, and Claude Code does not retry for minutes.
	start := time.Now()
	code, stdout, stderr = ccCassette(t, e, dir, append(args("replay", run), claude("write two files")...)...)
	if took := time.Since(start); code != 1 || !strings.Contains(stderr, "replay diverged at step 0, messages[0].content[1].text") ||
		!strings.Contains(stderr, `recorded: "write the file"`) || took > 30*time.Second {
		t.Errorf("changed prompt: exit %d after %v\nstdout: %s\nstderr: %s", code, took, stdout, stderr)
	}
	// Claude Code 2.1.328 tries a few variants of a request that got a 400
	// (6 were seen), then gives up; a 5xx it retries for minutes.
	var refused int
	if _, err := fmt.Sscanf(stderr[strings.LastIndex(stderr, "cc-cassette: ")+len("cc-cassette: "):], "%d model request(s) got the 400", &refused); err != nil || refused < 1 || refused > 10 {
		t.Errorf("requests answered 400: %d (%v)\nstderr: %s", refused, err, stderr)
	}
	t.Logf("divergence: Claude Code exited after %d request(s) answered 400", refused)

	// 4. fork at the Bash result with a scripted reply.
	child := filepath.Join(e.Root, "what-if.ndjson")
	script := e.WriteFile("replies.json", `[{"type":"final_answer","text":"Forked: the tests pass."}]`, 0o644)
	code, stdout, stderr = ccCassette(t, e, dir, append(args("fork", run, "--at", strconv.Itoa(toolResult), "--set", `"tests pass"`,
		"--script", script, "--out", child), claude("write the file")...)...)
	if code != 0 || !strings.Contains(stdout, "Forked: the tests pass.") {
		t.Fatalf("fork: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if code, out, errs := ccCassette(t, e, dir, "verify", child); code != 0 {
		t.Fatalf("verify %s: exit %d\n%s%s", child, code, out, errs)
	}
	if code, out, _ := ccCassette(t, e, dir, "diff", run, child); code != 1 || !strings.Contains(out, `"index":`+strconv.Itoa(toolResult)) {
		t.Errorf("diff parent child: exit %d\n%s", code, out)
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
