package contract

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/hooks"
	"github.com/ccpipe/ccpipe/lib/hooks/rules"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// buildCCHook builds the cc-hook binary the CLI will run as a hook.
func buildCCHook(t *testing.T) string {
	t.Helper()
	return filepath.Join(golden.Build(t, "cc-hook"), "cc-hook")
}

// ruleSettings is what `cc-hook settings RULES` prints, for bin.
func ruleSettings(t *testing.T, bin, rulesPath string) rules.Settings {
	t.Helper()
	f, err := rules.LoadFile(rulesPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	return f.Settings(bin+" run "+rulesPath, false)
}

// Every payload the real CLI sends parses with no type mismatch:
// `cc-hook parse` is registered for all 33 events and a headless run
// triggers the ones a -p session can (tool calls, a failing tool, a cd,
// a CLAUDE.md, the prompt, the stop, the end).
func TestHookPayloadsParse(t *testing.T) {
	Require(t)
	t.Parallel()
	bin := buildCCHook(t)
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("Working."), fakeapi.ToolUse("Bash", map[string]any{"command": "mkdir -p sub && echo made"})}},
		{Match: "made", Blocks: []fakeapi.Block{fakeapi.ToolUse("Bash", map[string]any{"command": "cd sub"})}},
		{Blocks: []fakeapi.Block{fakeapi.ToolUse("Bash", map[string]any{"command": "echo partial; exit 3"})}},
		{Match: "Exit code 3", Blocks: []fakeapi.Block{fakeapi.ToolUse("Read", map[string]any{"file_path": "/nonexistent/missing.txt"})}},
		{Blocks: []fakeapi.Block{fakeapi.Text("All done.")}},
	}}})
	dir := e.Project("hooks")
	if err := os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("Be brief.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	raw := filepath.Join(e.Root, "raw.ndjson")
	parsed := filepath.Join(e.Root, "parsed.ndjson")
	errs := filepath.Join(e.Root, "parse.err")
	cmd := "tee -a " + raw + " | " + bin + " parse >> " + parsed + " 2>> " + errs
	all := map[string]any{}
	for _, ev := range hooks.Events {
		all[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}
	}
	res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "go", AllowedTools: []string{"Bash", "Read"}, Settings: map[string]any{"hooks": all}})
	if res.ExitCode != 0 {
		t.Fatalf("claude -p: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if b, _ := os.ReadFile(errs); len(b) > 0 {
		t.Errorf("cc-hook parse complained:\n%s", b)
	}
	rawLines := readLines(t, raw)
	if n := len(readLines(t, parsed)); n != len(rawLines) {
		t.Errorf("%d payloads, %d parsed records", len(rawLines), n)
	}
	seen := map[string]int{}
	for i, line := range rawLines {
		ev, err := hooks.Parse(line)
		if err != nil {
			t.Errorf("payload %d: %v: %s", i+1, err, line)
			continue
		}
		b := ev.Common()
		seen[ev.EventName()]++
		if _, ok := ev.(*hooks.UnknownEvent); ok {
			t.Errorf("payload %d: unknown event %s", i+1, ev.EventName())
		}
		if len(b.TypeMismatches) > 0 {
			t.Errorf("%s: type mismatches %v in %s", ev.EventName(), b.TypeMismatches, line)
		}
		if len(b.UnknownFields) > 0 {
			// Drift, not failure: a field the spec does not list.
			t.Logf("%s: fields not modelled: %v", ev.EventName(), b.UnknownFields)
		}
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	t.Logf("events seen: %v", names)
	for _, want := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
		"PostToolBatch", "CwdChanged", "InstructionsLoaded", "Stop", "SessionEnd"} {
		if seen[want] == 0 {
			t.Errorf("no %s payload captured", want)
		}
	}
}

func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// A rule file denies Bash `touch ran`: the file is not created, and the
// tool result carries the rule's reason to the model.
func TestHookRuleDeniesBash(t *testing.T) {
	Require(t)
	t.Parallel()
	bin := buildCCHook(t)
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.ToolUse("Bash", map[string]any{"command": "touch ran"})}},
		{Match: "RULE-DENY-7", Blocks: []fakeapi.Block{fakeapi.Text("Understood, not touching.")}},
	}}})
	dir := e.Project("deny")
	rulesPath := e.WriteFile("rules.yaml", `rules:
  - name: no-touch
    events: [PreToolUse]
    matcher: Bash
    if: '.tool_input.command | startswith("touch")'
    decision: deny
    reason: "RULE-DENY-7: touch is forbidden here"
`, 0o644)
	res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "make the file", AllowedTools: []string{"Bash"}, Settings: ruleSettings(t, bin, rulesPath)})
	if res.ExitCode != 0 {
		t.Fatalf("claude -p: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); !os.IsNotExist(err) {
		t.Errorf("the denied command ran: %v", err)
	}
	var reached bool
	for _, r := range e.API.Requests() {
		reached = reached || r.Contains("PreToolUse:Bash hook error: RULE-DENY-7: touch is forbidden here")
	}
	if !reached {
		t.Error("the model was never sent the deny reason")
	}
	found := false
	for _, path := range e.Transcripts() {
		b, _ := os.ReadFile(path)
		found = found || strings.Contains(string(b), `"is_error":true`) && strings.Contains(string(b), "RULE-DENY-7")
	}
	if !found {
		t.Error("no tool_result with is_error and the reason in the transcript")
	}
}

// A rule adding SessionStart context reaches the model's first request.
func TestHookSessionStartContext(t *testing.T) {
	Require(t)
	t.Parallel()
	bin := buildCCHook(t)
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("Hello.")}},
	}}})
	dir := e.Project("ctx")
	rulesPath := e.WriteFile("rules.yaml", `rules:
  - events: SessionStart
    matcher: startup
    additional_context: "CTX-MARKER-77: the build uses make"
`, 0o644)
	res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "hi", Settings: ruleSettings(t, bin, rulesPath)})
	if res.ExitCode != 0 {
		t.Fatalf("claude -p: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	var first *fakeapi.Request
	for _, r := range e.API.Requests() {
		if r.Kind == fakeapi.KindScript || r.Kind == fakeapi.KindFallback {
			first = &r
			break
		}
	}
	if first == nil {
		t.Fatal("the model was never asked")
	}
	if !first.Contains("CTX-MARKER-77: the build uses make") {
		t.Errorf("the first model request lacks the SessionStart context:\n%.2000s", first.Body)
	}
}
