package contract

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/commands/ccgrep"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// ccGrepMatches runs cc-grep --matches on one transcript and returns its
// hit records.
func ccGrepMatches(t *testing.T, transcript string, args ...string) []map[string]any {
	t.Helper()
	in, _ := json.Marshal(map[string]string{"transcript_path": transcript})
	var out, errb bytes.Buffer
	code := ccgrep.Run(append([]string{"--matches"}, args...), bytes.NewReader(append(in, '\n')), &out, &errb)
	if code > 1 || errb.Len() > 0 {
		t.Fatalf("cc-grep %v: exit %d: %s", args, code, errb.String())
	}
	var hits []map[string]any
	dec := json.NewDecoder(&out)
	for dec.More() {
		var h map[string]any
		if err := dec.Decode(&h); err != nil {
			t.Fatal(err)
		}
		hits = append(hits, h)
	}
	return hits
}

// Hook output lands in attachments the real CLI writes: cc-grep finds a
// word a PreToolUse hook printed on a failure (hook_non_blocking_error),
// a word a UserPromptSubmit hook printed (hook_success), and a word a
// Stop hook blocked with, each where it lies, as well as the tool call and its
// result; a word of Claude Code's own system prompt is in the bytes
// (--raw) and not in the content.
func TestGrepContentHooks(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("Running it."), fakeapi.ToolUse("Bash", map[string]any{"command": "echo cmdwordzq"})}},
		{Match: "cmdwordzq", Blocks: []fakeapi.Block{fakeapi.Text("First answer.")}},
		{Match: "Stop hook feedback", Blocks: []fakeapi.Block{fakeapi.Text("Fixed it.")}},
	}}})
	dir := e.Project("grephooks")
	flag := e.Root + "/stopped-once"
	pre := e.WriteFile("pre.sh", "#!/bin/sh\necho 'prewarnzq from the hook' >&2\nexit 1\n", 0o755)
	submit := e.WriteFile("submit.sh", "#!/bin/sh\necho 'submitctxzq for the model'\nexit 0\n", 0o755)
	stop := e.WriteFile("stop.sh", "#!/bin/sh\nif [ ! -e "+flag+" ]; then touch "+flag+"; echo 'stopreasonzq: fix it' >&2; exit 2; fi\nexit 0\n", 0o755)
	hook := func(cmd string) []any {
		return []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}
	}
	settings := map[string]any{"hooks": map[string]any{"PreToolUse": hook(pre), "UserPromptSubmit": hook(submit), "Stop": hook(stop)}}
	res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "run it", Settings: settings, AllowedTools: []string{"Bash"}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d: %s", res.ExitCode, res.Stderr)
	}
	paths := e.Transcripts()
	if len(paths) != 1 {
		t.Fatalf("transcripts: %v", paths)
	}
	if out := os.Getenv("CCPIPE_KEEP_TRANSCRIPT"); out != "" {
		b, _ := os.ReadFile(paths[0])
		os.WriteFile(out+".grep", b, 0o644)
	}
	where := func(term string) []string {
		var ws []string
		for _, h := range ccGrepMatches(t, paths[0], "-C", "10", term) {
			w := h["where"].(string)
			for _, k := range []string{"tool", "attachment"} {
				if s, ok := h[k].(string); ok {
					w += " " + s
				}
			}
			snip := []rune(h["snippet"].(string))
			if got := string(snip[int(h["match_start"].(float64)):int(h["match_end"].(float64))]); !strings.EqualFold(got, term) {
				t.Errorf("%s: the offsets cut %q from %q", term, got, h["snippet"])
			}
			ws = append(ws, w)
		}
		return ws
	}
	has := func(term, want string) {
		t.Helper()
		ws := where(term)
		for _, w := range ws {
			if w == want {
				return
			}
		}
		t.Errorf("%s: hits %q, want one at %q", term, ws, want)
	}
	has("cmdwordzq", "tool_use Bash")
	has("cmdwordzq", "tool_result Bash")
	has("prewarnzq", "attachment hook_non_blocking_error")
	// UserPromptSubmit's stdout: hook_success, its content repeating its
	// stdout (one hit, not two).
	has("submitctxzq", "attachment hook_success")
	if ws := where("submitctxzq"); len(ws) != 1 {
		t.Errorf("submitctxzq: hits %q, want one", ws)
	}
	// The Stop hook's reason reaches the model as a meta user record.
	has("stopreasonzq", "prompt")
	// A phrase of the system prompt every session carries: bytes, not content.
	var out, errb bytes.Buffer
	in, _ := json.Marshal(map[string]string{"transcript_path": paths[0]})
	if code := ccgrep.Run([]string{"--raw", "authorized security testing"}, bytes.NewReader(append(in, '\n')), &out, &errb); code != 0 {
		t.Errorf("--raw: the system prompt's words not in the bytes (exit %d, %s)", code, errb.String())
	}
	if hits := where("authorized security testing"); len(hits) != 0 {
		t.Errorf("the system prompt's words matched as content: %q", hits)
	}
}
