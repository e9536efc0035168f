package contract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// wrapClaude makes e.Bin a script that runs the real claude under
// cc-cassette ARGS... -- claude, so the harness's tmux sessions go
// through the proxy.
func wrapClaude(t *testing.T, e *claudetest.Env, real string, args ...string) {
	t.Helper()
	bin, err := buildCassette()
	if err != nil {
		t.Fatal(err)
	}
	line := bin
	for _, a := range args {
		line += " '" + a + "'"
	}
	code := filepath.Join(e.Root, "exit-"+args[0])
	e.Bin = e.WriteFile("claude-under-cassette-"+args[0], "#!/bin/sh\n"+line+" -- '"+real+"' \"$@\"\necho $? > "+code+"\n", 0o755)
}

// Proof 5: an interactive session recorded and replayed under tmux.
func TestCassetteInteractive(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("Writing."), fakeapi.ToolUse("Bash", map[string]any{"command": "echo hi > i.txt && echo wrote-i"})}},
		{Match: "wrote-i", Blocks: []fakeapi.Block{fakeapi.Text("Interactive file written.")}},
	}}, Env: []string{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="}})
	real := e.Bin
	dir := e.Project("inter")
	run := filepath.Join(e.Root, "inter.ndjson")
	wrapClaude(t, e, real, "record", "--out", run)
	s := e.Interactive(claudetest.Cmd{Dir: dir, AllowedTools: []string{"Bash"}})
	s.WaitScreen("❯", 30*time.Second)
	s.Type("write the file")
	s.WaitScreen("Interactive file written.", 30*time.Second)
	s.Exit(20 * time.Second)
	var sides int
	for _, r := range e.API.Requests() {
		if r.Kind == fakeapi.KindSide {
			sides++
		}
	}
	if got := readExit(t, e, "record"); got != "0" {
		t.Fatalf("record exit %s", got)
	}
	_, steps := readCassette(t, run)
	var types []string
	var recordedSides int
	for _, st := range steps {
		types = append(types, st.Type)
		if m, _ := st.Payload.(map[string]any); m["event"] == "side_call" {
			recordedSides++
		}
	}
	if sides == 0 || recordedSides != sides {
		t.Errorf("the fake got %d side calls, the cassette holds %d", sides, recordedSides)
	}
	if !strings.Contains(strings.Join(types, ","), "model_input,model_output,tool_call,tool_result,model_input,model_output,metadata") {
		t.Errorf("steps %v", types)
	}

	// Replay under tmux with the fake API gone: same answer, file written again.
	seen := len(e.API.Requests())
	_ = e.API.Close()
	if err := os.Remove(filepath.Join(dir, "i.txt")); err != nil {
		t.Fatal(err)
	}
	wrapClaude(t, e, real, "replay", run)
	s = e.Interactive(claudetest.Cmd{Dir: dir, AllowedTools: []string{"Bash"}})
	s.WaitScreen("❯", 30*time.Second)
	s.Type("write the file")
	s.WaitScreen("Interactive file written.", 30*time.Second)
	s.Exit(20 * time.Second)
	if got := readExit(t, e, "replay"); got != "0" {
		t.Errorf("replay exit %s", got)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "i.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("replay: i.txt %q %v", b, err)
	}
	if n := len(e.API.Requests()); n != seen {
		t.Errorf("replay reached the fake API %d times", n-seen)
	}
}

func readExit(t *testing.T, e *claudetest.Env, mode string) string {
	t.Helper()
	var b []byte
	e.WaitFor("cc-cassette "+mode+" exit code", 10*time.Second, func() (bool, error) {
		var err error
		b, err = os.ReadFile(filepath.Join(e.Root, "exit-"+mode))
		return err == nil && len(b) > 0, err
	})
	return strings.TrimSpace(string(b))
}
