package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/hooks"
	"github.com/ccpipe/ccpipe/lib/hooks/backtest"
	"github.com/ccpipe/ccpipe/lib/hooks/rules"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// TestBacktestPayloads: the payloads cc-hook backtest rebuilds from a
// transcript are the ones the real CLI sent its hooks in that session
// (captured with tee): every PreToolUse, PostToolUse, PostToolUseFailure,
// UserPromptSubmit, Stop and SessionStart, a subagent's calls included,
// field by field.
func TestBacktestPayloads(t *testing.T) {
	Require(t)
	t.Parallel()
	bash := func(c string) fakeapi.Block { return fakeapi.ToolUse("Bash", map[string]any{"command": c}) }
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("Working."), bash("echo hello-backtest")}},
		{Match: "hello-backtest", Blocks: []fakeapi.Block{bash("echo partial; exit 3")}},
		{Match: "Exit code 3", Blocks: []fakeapi.Block{fakeapi.ToolUse("Write", map[string]any{"file_path": "notes.txt", "content": "one\n"})}},
		{Match: "(?i)created", Blocks: []fakeapi.Block{fakeapi.ToolUse("Edit", map[string]any{"file_path": "notes.txt", "old_string": "one", "new_string": "two"})}},
		{Match: "(?i)updated", Blocks: []fakeapi.Block{fakeapi.ToolUse("Read", map[string]any{"file_path": "/nonexistent/missing.txt"})}},
		{Match: "(?i)does not exist", Blocks: []fakeapi.Block{fakeapi.ToolUse("Agent", map[string]any{
			"description": "Check", "subagent_type": "general-purpose", "run_in_background": false,
			"prompt": "SUB-TASK: run echo sub-ok and report."})}},
		{Match: "SUB-TASK", Blocks: []fakeapi.Block{bash("echo sub-ok")}},
		{Match: "sub-ok", Blocks: []fakeapi.Block{fakeapi.Text("Sub report: sub-ok")}},
		{Match: "Sub report", Blocks: []fakeapi.Block{fakeapi.Text("All done.")}},
		{Match: "ONE-MORE-TURN", Blocks: []fakeapi.Block{fakeapi.Text("One more turn, done.")}},
	}}})
	dir := e.Project("backtest")
	raw := filepath.Join(e.Root, "raw.ndjson")
	all := map[string]any{}
	for _, ev := range backtest.Events {
		all[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "cat >> " + raw + "; echo >> " + raw}}}}
	}
	// A second Stop hook sends Claude back once: the next Stop has
	// stop_hook_active true.
	block := e.WriteFile("block-once.sh", "#!/bin/sh\ngrep -q '\"stop_hook_active\":false' && echo '{\"decision\":\"block\",\"reason\":\"ONE-MORE-TURN\"}'\nexit 0\n", 0o755)
	all[hooks.Stop] = append(all[hooks.Stop].([]any), map[string]any{"hooks": []any{map[string]any{"type": "command", "command": block}}})
	res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "go", AllowedTools: []string{"Bash", "Read", "Write", "Edit", "Agent"},
		Settings: map[string]any{"hooks": all}})
	if res.ExitCode != 0 {
		t.Fatalf("claude -p: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	// The rules answer nothing: --all prints every rebuilt payload.
	var rf strings.Builder
	rf.WriteString("rules:\n")
	for _, ev := range backtest.Events {
		fmt.Fprintf(&rf, "  - {events: %s, if: 'false', additional_context: x}\n", ev)
	}
	f, err := rules.Load([]byte(rf.String()))
	if err != nil {
		t.Fatal(err)
	}
	var rebuilt [][]byte
	_, err = backtest.Run(context.Background(), f, backtest.Options{All: true},
		func(add func(string) error) error {
			for _, p := range e.Transcripts() {
				if err := add(p); err != nil {
					return err
				}
			}
			return nil
		},
		func(r backtest.Record) error { rebuilt = append(rebuilt, r.Payload); return nil })
	if err != nil {
		t.Fatal(err)
	}
	sent := readLines(t, raw)
	got, want := keyed(t, rebuilt), keyed(t, sent)
	if g, w := keys(got), keys(want); !slices.Equal(g, w) {
		t.Errorf("rebuilt payloads:\n  %s\nsent:\n  %s", strings.Join(g, "\n  "), strings.Join(w, "\n  "))
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			continue
		}
		for _, field := range []string{"session_id", "transcript_path", "cwd", "agent_id", "agent_type", "tool_name", "tool_input",
			"tool_use_id", "tool_response", "error", "is_interrupt", "prompt", "stop_hook_active", "last_assistant_message", "source"} {
			wv, gv := w[field], g[field]
			if field == "tool_response" && w["agent_id"] != nil && w["tool_name"] != nil && string(w["tool_name"]) == `"Bash"` {
				// A subagent's transcript keeps no toolUseResult: only the
				// output is rebuilt.
				wv, gv = member(wv, "stdout"), member(gv, "stdout")
			}
			if !jsonEqual(wv, gv) {
				t.Errorf("%s: %s:\n  rebuilt %s\n  sent    %s", k, field, gv, wv)
			}
		}
	}
	// What the transcript cannot give: logged, and named in the docs.
	missing := map[string]bool{}
	for k, w := range want {
		for f := range w {
			if _, ok := got[k][f]; !ok && got[k] != nil {
				missing[f] = true
			}
		}
	}
	t.Logf("fields sent, not rebuilt: %v", keysOf(missing))
	subagent := 0
	for _, w := range want {
		if w["agent_id"] != nil && w["agent_type"] != nil {
			subagent++
		}
	}
	if w := want["Stop #2"]; w == nil || string(w["stop_hook_active"]) != "true" {
		t.Errorf("no second Stop with stop_hook_active true was sent: %v", keys(want))
	}
	if subagent == 0 {
		t.Error("no payload from inside the subagent (agent_id, agent_type) was sent")
	}
	t.Logf("%d payloads compared: %s", len(want), strings.Join(keys(want), "; "))
}

// keyed indexes payloads by event and what tells them apart: the
// tool_use_id, the prompt, the source, the n-th Stop.
func keyed(t *testing.T, payloads [][]byte) map[string]map[string]json.RawMessage {
	t.Helper()
	out := map[string]map[string]json.RawMessage{}
	stops := 0
	for _, p := range payloads {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(p, &m); err != nil {
			t.Fatalf("%v: %s", err, p)
		}
		var ev string
		_ = json.Unmarshal(m["hook_event_name"], &ev)
		if !slices.Contains(backtest.Events, ev) {
			continue
		}
		k := ev
		switch ev {
		case hooks.Stop:
			stops++
			k += fmt.Sprint(" #", stops)
		case hooks.UserPromptSubmit:
			k += " " + string(m["prompt"])
		case hooks.SessionStart:
			k += " " + string(m["source"])
		default:
			k += " " + string(m["tool_use_id"])
		}
		out[k] = m
	}
	return out
}

func keys(m map[string]map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func keysOf(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func member(raw json.RawMessage, name string) json.RawMessage {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	return m[name]
}

func jsonEqual(a, b json.RawMessage) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
