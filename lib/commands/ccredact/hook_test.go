package ccredact

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/hooks"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

const hookPayloads = "../../../testdata/hooks/payloads"

// payload is the real CLI's payload of event with the fields of set
// replaced (JSON values).
func payload(t *testing.T, event string, set map[string]string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(hookPayloads, event+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range set {
		m[k] = json.RawMessage(v)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out) + "\n"
}

// bashOutput is a Bash tool_response with stdout and the other fields as
// Claude Code 2.1.328 sends them.
func bashOutput(stdout string, extra string) string {
	return `{"stdout":` + quote(stdout) + `,"stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false` + extra + `}`
}

var hookSystem = cli.System{Home: "/home/dev", Executable: func() (string, error) { return "/usr/local/bin/cc-redact", nil }}

// TestHook: the reply to each kind of payload, and what must never happen
// (a secret printed, an exit 2, a reply to a clean output).
func TestHook(t *testing.T) {
	ps := plants()
	ant, gh := ps[0], ps[4]
	two := "KEY1=" + ant.secret + "\nnothing\n" + gh.text() + "\n"
	tests := []struct {
		name    string
		stdin   string
		args    []string
		code    int
		kinds   []string // masked in updatedToolOutput
		mcp     bool     // updatedMCPToolOutput too
		message string   // in systemMessage
		stderr  string
	}{
		{name: "two kinds in Bash stdout", stdin: payload(t, "PostToolUse", map[string]string{"tool_response": bashOutput(two, "")}),
			kinds: []string{"anthropic-api-key", "github-token"}, message: "cc-redact masked 2 secrets (anthropic-api-key, github-token) in the output of Bash before Claude saw it"},
		{name: "persisted output named", stdin: payload(t, "PostToolUse", map[string]string{"tool_response": bashOutput(two,
			`,"persistedOutputPath":"/home/dev/.claude/projects/p/s/tool-results/b1.txt","persistedOutputSize":229016`)}),
			kinds: []string{"anthropic-api-key", "github-token"}, message: "Claude Code had already saved the whole output, unmasked, to /home/dev/.claude/projects/p/s/tool-results/b1.txt"},
		{name: "MCP content array", stdin: payload(t, "PostToolUse", map[string]string{"tool_name": `"mcp__vault__get"`,
			"tool_response": `[{"type":"text","text":` + quote("token: "+gh.secret) + `}]`}),
			kinds: []string{"github-token"}, mcp: true, message: "a secret (github-token) in the output of mcp__vault__get"},
		{name: "grep colour inside a key", stdin: payload(t, "PostToolUse", map[string]string{"tool_response": bashOutput(
			".env:ANTHROPIC_API_KEY=\x1b[01;31m\x1b[Ksk-ant\x1b[m\x1b[K"+ant.secret[len("sk-ant"):]+"\n", "")}),
			kinds: []string{"anthropic-api-key"}, message: "cc-redact masked a secret (anthropic-api-key) in the output of Bash before Claude saw it"},
		{name: "clean output: no reply", stdin: payload(t, "PostToolUse", map[string]string{"tool_response": bashOutput("sk-ant- is the prefix; ghp_ too", "")})},
		{name: "the real payload: no reply", stdin: payload(t, "PostToolUse", nil)},
		{name: "failure with a key: warning", stdin: payload(t, "PostToolUseFailure", map[string]string{"error": quote("Exit code 3\n" + ant.text())}),
			message: "cc-redact: the output of a failed Bash call held a secret (anthropic-api-key)"},
		{name: "clean failure: no reply", stdin: payload(t, "PostToolUseFailure", nil)},
		{name: "another event", stdin: payload(t, "PreToolUse", nil),
			stderr: "cc-redact: --hook: a PreToolUse payload: --hook answers PostToolUse (and warns on PostToolUseFailure) (the output passes unchanged)\n"},
		{name: "not JSON", stdin: "{\"hook_event_name\":\"PostToolUse\",\"tool_response\":" + quote(ant.secret) + ",\n",
			stderr: "cc-redact: --hook: not a hook payload: invalid JSON: "},
		{name: "no payload", stderr: "cc-redact: --hook: no payload on stdin (the output passes unchanged)\n"},
		{name: "unknown flag exits 1, not 2", args: []string{"--nope"}, code: 1, stderr: "cc-redact: unknown flag --nope\n"},
		{name: "--jq exits 1", args: []string{"--jq", "."}, code: 1, stderr: "cc-redact: --hook prints a reply for Claude Code, not records: --jq does not apply\n"},
		{name: "bad rules file exits 1", args: []string{"--rules", "/nonexistent/x.rules"}, code: 1, stderr: "cc-redact: --rules: open /nonexistent/x.rules: no such file or directory\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, hookSystem, tt.stdin, append([]string{"--hook"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, errs)
			}
			if tt.stderr == "" && errs != "" || !strings.HasPrefix(errs, tt.stderr) {
				t.Errorf("stderr %q, want %q", errs, tt.stderr)
			}
			for _, p := range ps {
				if strings.Contains(out+errs, p.secret) {
					t.Errorf("%s printed", p.kind)
				}
			}
			if tt.kinds == nil && tt.message == "" {
				if out != "" {
					t.Errorf("a reply where none is due: %s", out)
				}
				return
			}
			if !strings.HasSuffix(out, "}\n") || strings.Count(out, "\n") != 1 {
				t.Fatalf("not one JSON line: %q", out)
			}
			event := hooks.PostToolUse
			if tt.kinds == nil {
				event = hooks.PostToolUseFailure
			}
			if problems := hooks.Check(event, []byte(out)); len(problems) > 0 {
				t.Errorf("Claude Code would not take the reply: %v", problems)
			}
			var reply struct {
				SystemMessage string `json:"systemMessage"`
				HSO           *struct {
					Event string          `json:"hookEventName"`
					Out   json.RawMessage `json:"updatedToolOutput"`
					MCP   json.RawMessage `json:"updatedMCPToolOutput"`
				} `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal([]byte(out), &reply); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(reply.SystemMessage, tt.message) {
				t.Errorf("systemMessage %q, want it to hold %q", reply.SystemMessage, tt.message)
			}
			if tt.kinds == nil {
				if reply.HSO != nil {
					t.Errorf("a failure's reply replaces output: %s", out)
				}
				return
			}
			if reply.HSO == nil || reply.HSO.Event != hooks.PostToolUse {
				t.Fatalf("no PostToolUse hookSpecificOutput: %s", out)
			}
			if tt.mcp != (reply.HSO.MCP != nil) || tt.mcp && string(reply.HSO.MCP) != string(reply.HSO.Out) {
				t.Errorf("updatedMCPToolOutput %s, want it (as updatedToolOutput) %v", reply.HSO.MCP, tt.mcp)
			}
			for _, k := range tt.kinds {
				if !strings.Contains(string(reply.HSO.Out), "[REDACTED:"+k+"]") {
					t.Errorf("%s not masked: %s", k, reply.HSO.Out)
				}
			}
			// The rewrite keeps the tool's output shape: the same keys,
			// the same non-string values.
			in, _ := hooks.Parse([]byte(tt.stdin))
			orig := in.(*hooks.PostToolUseEvent).ToolResponse
			if shape(t, orig) != shape(t, reply.HSO.Out) {
				t.Errorf("shape changed:\n%s\n%s", shape(t, orig), shape(t, reply.HSO.Out))
			}
		})
	}
}

// shape is v with every string replaced by "", as JSON.
func shape(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var blank func(any) any
	blank = func(v any) any {
		switch x := v.(type) {
		case string:
			return ""
		case []any:
			for i := range x {
				x[i] = blank(x[i])
			}
		case map[string]any:
			for k := range x {
				x[k] = blank(x[k])
			}
		}
		return v
	}
	b, _ := json.Marshal(blank(v))
	return string(b)
}

// TestHookCorpus: every tool output of the real-CLI corpus, sent as a
// PostToolUse payload, gets no reply (the corpus holds no secret).
func TestHookCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpus, "projects/*/*.jsonl"))
	sub, _ := filepath.Glob(filepath.Join(corpus, "projects/*/*/subagents/*.jsonl"))
	n := 0
	for _, f := range append(files, sub...) {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewReader(fh)
		for {
			line, err := sc.ReadBytes('\n')
			if len(line) > 0 {
				var rec struct {
					ToolUseResult json.RawMessage `json:"toolUseResult"`
				}
				if json.Unmarshal(line, &rec) == nil && len(rec.ToolUseResult) > 0 {
					n++
					p := payload(t, "PostToolUse", map[string]string{"tool_response": string(rec.ToolUseResult)})
					if code, out, errs := run(t, hookSystem, p, "--hook"); code != 0 || out != "" || errs != "" {
						t.Errorf("%s: exit %d, reply %q, stderr %q", f, code, out, errs)
					}
				}
			}
			if err != nil {
				break
			}
		}
		fh.Close()
	}
	if n < 10 {
		t.Errorf("only %d tool outputs in the corpus", n)
	}
}

// TestPrintSettings: the object that installs --hook, with the binary's
// path and the --rules given; stderr names the user settings file.
func TestPrintSettings(t *testing.T) {
	rules := filepath.Join(t.TempDir(), "site rules")
	if err := os.WriteFile(rules, []byte("acme-token ACME_[0-9a-f]{32}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, hookSystem, "", "--print-settings", "--rules", rules)
	got := strings.ReplaceAll(golden.Output(code, errs, out), rules, "$RULES")
	golden.Check(t, filepath.Join("testdata", "hook", "settings.golden"), got)
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Errorf("stdout is not one JSON object: %v", err)
	}
	if code, _, errs := run(t, hookSystem, "", "--print-settings", "--scan"); code != 2 || !strings.Contains(errs, "give one") {
		t.Errorf("--print-settings --scan: exit %d %q", code, errs)
	}
}

// TestHookGolden keeps the reply to the real payload with two planted
// keys in testdata/hook.
func TestHookGolden(t *testing.T) {
	ps := plants()
	p := payload(t, "PostToolUse", map[string]string{"tool_response": bashOutput("KEY1="+ps[0].secret+"\n"+ps[4].text()+"\n", "")})
	code, out, errs := run(t, hookSystem, p, "--hook")
	golden.Check(t, filepath.Join("testdata", "hook", "bash.golden"), golden.Output(code, errs, out))
}
