package contract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// cc-cassette record against upstream faults, with the real Claude Code
// as the client (issue 31 #3, #9): an error event inside a 200 stream
// (overloaded mid-stream) and a connection reset mid-stream are passed
// on as they came, so Claude Code's own retry runs and is forwarded; the
// fault is recorded as an upstream_error step. An upstream that always
// cuts: the run ends on the failure and record exits non-zero.
func TestCassetteStreamFaults(t *testing.T) {
	Require(t)
	t.Parallel()
	for _, c := range []struct {
		name  string
		fault fakeapi.Turn
		want  string // in the recorded upstream_error
	}{
		{"error-event", fakeapi.Turn{ErrorAfter: 2}, "overloaded_error"},
		{"cut", fakeapi.Turn{CutAfter: 3}, "cut"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.fault.Blocks = []fakeapi.Block{fakeapi.Text("This answer breaks off.")}
			e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
				c.fault, {Blocks: []fakeapi.Block{fakeapi.Text("Answered after the retry.")}},
			}}, Env: []string{"CLAUDE_CODE_MAX_RETRIES=2"}})
			dir := e.Project("rec")
			run := filepath.Join(e.Root, "run.ndjson")
			code, stdout, stderr := ccCassette(t, e, dir, "record", "--out", run, "--", e.Bin, "-p", "say something")
			if code != 0 || !strings.Contains(stdout, "Answered after the retry.") {
				t.Fatalf("record: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if strings.Contains(stderr, "x-should-retry") || strings.Contains(stderr, "did not recover") {
				t.Errorf("stderr: %s", stderr)
			}
			if code, out, errs := ccCassette(t, e, dir, "verify", run); code != 0 {
				t.Fatalf("verify: exit %d\n%s%s", code, out, errs)
			}
			_, steps := readCassette(t, run)
			var types []string
			found := false
			for _, s := range steps {
				types = append(types, s.Type)
				if m, _ := s.Payload.(map[string]any); s.Type == "metadata" && m["event"] == "upstream_error" && m["call"] == "main" {
					found = strings.Contains(m["error"].(string), c.want)
				}
			}
			if !found || types[len(types)-2] != "model_output" {
				t.Errorf("steps %v: want a main upstream_error naming %q, then the retry's answer", types, c.want)
			}
			// Replay offline gives the fault back the way it came (the
			// stream's start, then the error event or the cut), so Claude
			// Code retries as it did (after a started stream, a
			// non-streaming request with max_tokens 64000), and answers the
			// retry from the cassette.
			_ = e.API.Close()
			if code, out, errs := ccCassette(t, e, dir, "replay", run, "--", e.Bin, "-p", "say something"); code != 0 || out != stdout {
				t.Errorf("replay: exit %d\n%s\n%s", code, out, errs)
			}
		})
	}
	t.Run("always-cut", func(t *testing.T) {
		t.Parallel()
		e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
			{CutAfter: 3, Times: -1, Blocks: []fakeapi.Block{fakeapi.Text("Never whole.")}},
		}}, Env: []string{"CLAUDE_CODE_MAX_RETRIES=1"}})
		dir := e.Project("rec")
		run := filepath.Join(e.Root, "run.ndjson")
		code, stdout, stderr := ccCassette(t, e, dir, "record", "--out", run, "--", e.Bin, "-p", "say something")
		if code == 0 {
			t.Fatalf("record of a run that never got an answer: exit 0\nstdout: %s\nstderr: %s", stdout, stderr)
		}
		b, err := os.ReadFile(run)
		if err != nil || !strings.Contains(string(b), `"upstream_error"`) || !strings.Contains(string(b), `"run_failed"`) {
			t.Errorf("cassette: %v\n%.2000s", err, b)
		}
		t.Logf("exit %d, stderr:\n%s", code, stderr)
	})
}
