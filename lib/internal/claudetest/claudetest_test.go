package claudetest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The unit tests run the harness against a stand-in "claude" shell script
// (via CCPIPE_CLAUDE_BIN), so they need neither npm nor the real CLI; the
// real one is exercised by lib/internal/contract.
const fakeClaude = `#!/bin/sh
if [ "$1" = "--version" ]; then echo "2.1.328 (Claude Code)"; exit 0; fi
echo "args: $*"
echo "pwd: $(pwd)"
env | sort
if [ -n "$FAKE_SLEEP" ]; then echo "ready-for-keys"; exec sleep "$FAKE_SLEEP"; fi
exit 3
`

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "claudetest-unit")
	if err != nil {
		panic(err)
	}
	bin := filepath.Join(dir, "claude")
	if err := os.WriteFile(bin, []byte(fakeClaude), 0o755); err != nil {
		panic(err)
	}
	os.Setenv("CCPIPE_CLAUDE_BIN", bin)
	os.Setenv("ANTHROPIC_AUTH_TOKEN", "developer-token")
	os.Setenv("CLAUDE_CONFIG_DIR", "/developer/.claude")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestHeadlessEnvAndArgs(t *testing.T) {
	e := New(t, Config{Projects: []string{"alpha"}, Env: []string{"EXTRA=1"}})
	dir := e.Project("alpha")
	res := e.Headless(Cmd{Dir: dir, Prompt: "hi there", AllowedTools: []string{"Bash", "Read"},
		Settings: map[string]any{"hooks": map[string]any{}}, Args: []string{"--session-id", "x"}})
	if res.ExitCode != 3 {
		t.Fatalf("exit %d, stderr %s", res.ExitCode, res.Stderr)
	}
	out := res.Stdout
	for _, want := range []string{
		"args: -p hi there --settings " + e.Root + "/files/settings-1.json --allowedTools Bash,Read --session-id x\n",
		"pwd: " + dir + "\n",
		"HOME=" + e.Home + "\n", "CLAUDE_CONFIG_DIR=" + e.ConfigDir + "\n",
		"ANTHROPIC_BASE_URL=" + e.API.URL() + "\n", "ANTHROPIC_API_KEY=" + TestKey + "\n",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1\n", "DISABLE_AUTOUPDATER=1\n",
		"CLAUDE_CODE_TMPDIR=" + e.TmpDir + "\n", "EXTRA=1\n", "LANG=C.UTF-8\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"developer-token", "/developer/.claude"} {
		if strings.Contains(out, bad) {
			t.Errorf("developer variable leaked: %q", bad)
		}
	}
	var cfg struct {
		HasCompletedOnboarding bool
		CustomAPIKeyResponses  struct{ Approved []string } `json:"customApiKeyResponses"`
		Projects               map[string]struct{ HasTrustDialogAccepted bool }
	}
	b, err := os.ReadFile(e.ClaudeJSON())
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if !cfg.HasCompletedOnboarding || len(cfg.CustomAPIKeyResponses.Approved) != 1 ||
		cfg.CustomAPIKeyResponses.Approved[0] != TestKey[len(TestKey)-20:] || !cfg.Projects[dir].HasTrustDialogAccepted {
		t.Errorf(".claude.json %s", b)
	}
	if e.ClaudeJSON() != filepath.Join(e.ConfigDir, ".claude.json") {
		t.Errorf("ClaudeJSON %s", e.ClaudeJSON())
	}
}

func TestInHomeAndTimeout(t *testing.T) {
	e := New(t, Config{InHome: true})
	if e.ConfigDir != filepath.Join(e.Home, ".claude") || e.ClaudeJSON() != filepath.Join(e.Home, ".claude.json") {
		t.Errorf("config %s, file %s", e.ConfigDir, e.ClaudeJSON())
	}
	if _, err := os.Stat(e.ClaudeJSON()); err != nil {
		t.Error(err)
	}
	start := time.Now()
	res := e.Headless(Cmd{Prompt: "x", Env: []string{"FAKE_SLEEP=30"}, Timeout: time.Second})
	if res.ExitCode != -1 || !strings.Contains(res.Stderr, "killed after 1s") || time.Since(start) > 10*time.Second {
		t.Errorf("timeout: exit %d, stderr %q", res.ExitCode, res.Stderr)
	}
	if strings.Contains(res.Stdout, "CLAUDE_CONFIG_DIR=") {
		t.Error("InHome run got CLAUDE_CONFIG_DIR")
	}
}

func TestInteractiveTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	e := New(t, Config{})
	s := e.Interactive(Cmd{Env: []string{"FAKE_SLEEP=60"}})
	scr := s.WaitScreen("ready-for-keys", 10*time.Second)
	if !strings.Contains(scr, "TMUX_PANE=") {
		t.Errorf("pane env has no TMUX_PANE:\n%s", scr)
	}
	if !s.Alive() {
		t.Fatal("pane process not alive")
	}
	s.Type("typed-text")
	s.WaitScreen("typed-text", 5*time.Second)
	s.Kill9()
	if s.Alive() {
		t.Error("alive after Kill9")
	}
}

func TestSlugAndQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/home/lab/proj.dots":  "-home-lab-proj-dots",
		"/home/lab/proj space": "-home-lab-proj-space",
		"/home/lab/projü":      "-home-lab-proj-",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"abc/d-e.f": "abc/d-e.f", "a b": "'a b'", "it's": `'it'\''s'`, "": "''"} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestReadJSONL(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.jsonl")
	_ = os.WriteFile(p, []byte("{\"a\":1}\n\n{\"b\":2}\n{bad\n"), 0o644)
	recs, err := ReadJSONL(p)
	if err == nil || !strings.Contains(err.Error(), "t.jsonl:4") || recs != nil {
		t.Errorf("got %v, %v; want an error naming line 4", recs, err)
	}
}
