package claudetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// TestKey is the fake API key every session gets. It is not a credential;
// the CLI only sends it to the fake API.
const TestKey = "sk-ant-test-ccpipe-0123456789abcdefghij"

// TB is the part of testing.TB the harness uses. *testing.T satisfies it;
// gencorpus supplies its own.
type TB interface {
	Helper()
	Cleanup(func())
	Logf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Config says how to prepare an Env. The zero value is fine.
type Config struct {
	// Script drives the fake API (nil: every request gets short text).
	Script *fakeapi.Script
	// Root is the dir that holds everything (default: a new short temp dir,
	// removed at cleanup). Short, because socket paths must stay < 104 bytes.
	Root string
	// InHome puts the config in HOME/.claude and HOME/.claude.json instead
	// of setting CLAUDE_CONFIG_DIR.
	InHome bool
	// Projects are project dir names created under Root/projects and
	// trusted in .claude.json (more can be added with Project).
	Projects []string
	// Env is extra KEY=VALUE for every process (after the defaults).
	Env []string
}

// Env is one prepared machine: a fake API, a fresh HOME, a config dir with
// a .claude.json that skips onboarding and trusts the project dirs.
type Env struct {
	t         TB
	Bin       string          // the claude binary
	API       *fakeapi.Server // the fake Messages API
	Root      string
	Home      string // $HOME of the CLI
	ConfigDir string // the config dir ($CLAUDE_CONFIG_DIR, or HOME/.claude)
	TmpDir    string // $CLAUDE_CODE_TMPDIR: sockets and per-session temp dirs
	inHome    bool
	extra     []string

	mu       sync.Mutex
	projects map[string]bool
	nfile    int
}

// New prepares an Env, or calls t.Fatalf when the CLI cannot be found or
// installed. Everything it starts is stopped at t's cleanup.
func New(t TB, c Config) *Env {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Fatalf("claudetest: Claude Code %s unavailable: %v", Version, err)
	}
	e := &Env{t: t, Bin: bin, Root: c.Root, inHome: c.InHome, extra: c.Env, projects: map[string]bool{}}
	if e.Root == "" {
		if e.Root, err = os.MkdirTemp("", "cct"); err != nil {
			t.Fatalf("claudetest: %v", err)
		}
		t.Cleanup(func() { _ = os.RemoveAll(e.Root) })
	}
	if e.Root, err = filepath.EvalSymlinks(e.Root); err != nil {
		t.Fatalf("claudetest: %v", err)
	}
	e.Home = filepath.Join(e.Root, "home")
	e.ConfigDir = filepath.Join(e.Root, "claude")
	if c.InHome {
		e.ConfigDir = filepath.Join(e.Home, ".claude")
	}
	e.TmpDir = filepath.Join(e.Root, "tmp")
	for _, d := range []string{e.Home, e.ConfigDir, e.TmpDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatalf("claudetest: %v", err)
		}
	}
	if err := e.writeClaudeJSON(); err != nil {
		t.Fatalf("claudetest: %v", err)
	}
	for _, p := range c.Projects {
		e.Project(p)
	}
	if e.API, err = fakeapi.Start(c.Script, ""); err != nil {
		t.Fatalf("claudetest: %v", err)
	}
	t.Cleanup(func() { _ = e.API.Close() })
	return e
}

// ClaudeJSON is the path of the .claude.json the CLI reads.
func (e *Env) ClaudeJSON() string {
	if e.inHome {
		return filepath.Join(e.Home, ".claude.json")
	}
	return filepath.Join(e.ConfigDir, ".claude.json")
}

// SessionsDir is the registry dir.
func (e *Env) SessionsDir() string { return filepath.Join(e.ConfigDir, "sessions") }

// ProjectsDir is where transcripts go.
func (e *Env) ProjectsDir() string { return filepath.Join(e.ConfigDir, "projects") }

// Project makes (if needed) and trusts Root/projects/<name>, returning its
// absolute path. Add projects before starting sessions: a running CLI
// rewrites .claude.json itself.
func (e *Env) Project(name string) string {
	e.t.Helper()
	dir := filepath.Join(e.Root, "projects", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatalf("claudetest: %v", err)
	}
	e.Trust(dir)
	return dir
}

// Trust marks dir trusted in .claude.json.
func (e *Env) Trust(dir string) {
	e.t.Helper()
	e.mu.Lock()
	e.projects[dir] = true
	e.mu.Unlock()
	if err := e.writeClaudeJSON(); err != nil {
		e.t.Fatalf("claudetest: %v", err)
	}
}

// writeClaudeJSON merges the first-run answers into .claude.json, keeping
// whatever the CLI wrote there.
func (e *Env) writeClaudeJSON() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	path := e.ClaudeJSON()
	cfg := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &cfg)
	}
	cfg["hasCompletedOnboarding"] = true
	cfg["lastOnboardingVersion"] = Version
	cfg["customApiKeyResponses"] = map[string]any{"approved": []string{TestKey[len(TestKey)-20:]}, "rejected": []string{}}
	projects, _ := cfg["projects"].(map[string]any)
	if projects == nil {
		projects = map[string]any{}
	}
	for dir := range e.projects {
		p, _ := projects[dir].(map[string]any)
		if p == nil {
			p = map[string]any{}
		}
		p["hasTrustDialogAccepted"] = true
		projects[dir] = p
	}
	cfg["projects"] = projects
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

// Environ is the environment of every CLI process: the test's own minus
// ANTHROPIC_*/CLAUDE_* (and TMUX, XDG_RUNTIME_DIR), plus the fake API, the
// test key, no nonessential traffic, no updater, then Config.Env.
func (e *Env) Environ() []string {
	env := cleanEnviron(os.Environ())
	if os.Getenv("GOCACHE") == "" { // HOME changes; keep hooks built with go fast
		if d, err := os.UserCacheDir(); err == nil {
			env = append(env, "GOCACHE="+filepath.Join(d, "go-build"))
		}
	}
	if os.Getenv("GOMODCACHE") == "" && os.Getenv("GOPATH") == "" {
		if h, err := os.UserHomeDir(); err == nil {
			env = append(env, "GOPATH="+filepath.Join(h, "go"))
		}
	}
	env = append(env,
		"HOME="+e.Home,
		"ANTHROPIC_BASE_URL="+e.API.URL(),
		"ANTHROPIC_API_KEY="+TestKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_TMPDIR="+e.TmpDir,
		"LANG=C.UTF-8",
		"TERM=xterm-256color",
		"SHELL=/bin/bash",
	)
	if !e.inHome {
		env = append(env, "CLAUDE_CONFIG_DIR="+e.ConfigDir)
	}
	return append(env, e.extra...)
}

// WriteFile writes content to Root/files/<name> with the given mode and
// returns the path (hook scripts, settings, scripts for -p prompts).
func (e *Env) WriteFile(name, content string, mode os.FileMode) string {
	e.t.Helper()
	p := filepath.Join(e.Root, "files", name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatalf("claudetest: %v", err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		e.t.Fatalf("claudetest: %v", err)
	}
	return p
}

// Cmd describes one claude process.
type Cmd struct {
	Dir          string        // working dir (default: Project("project"))
	Prompt       string        // headless: passed as -p PROMPT
	Args         []string      // more CLI arguments
	Env          []string      // more KEY=VALUE, after Env.Environ
	Settings     any           // JSON-marshalled to a file passed with --settings
	AllowedTools []string      // passed as --allowedTools a,b,c
	Timeout      time.Duration // headless: kill after this (default 90 s)
}

func (e *Env) argv(c Cmd, headless bool) (string, []string) {
	e.t.Helper()
	dir := c.Dir
	if dir == "" {
		dir = e.Project("project")
	}
	var args []string
	if headless {
		args = append(args, "-p", c.Prompt)
	}
	if c.Settings != nil {
		b, err := json.Marshal(c.Settings)
		if err != nil {
			e.t.Fatalf("claudetest: settings: %v", err)
		}
		e.mu.Lock()
		e.nfile++
		n := e.nfile
		e.mu.Unlock()
		args = append(args, "--settings", e.WriteFile(fmt.Sprintf("settings-%d.json", n), string(b), 0o644))
	}
	if len(c.AllowedTools) > 0 {
		args = append(args, "--allowedTools", strings.Join(c.AllowedTools, ","))
	}
	return dir, append(args, c.Args...)
}

// Result is how a headless run ended.
type Result struct {
	Stdout, Stderr string
	ExitCode       int // -1 when killed
}

// Proc is a running headless claude.
type Proc struct {
	Cmd  *exec.Cmd
	Pid  int
	done chan struct{}
	res  Result
	out  bytes.Buffer
	err  bytes.Buffer
}

// Start starts claude -p in the background; the process (and its process
// group) is killed at cleanup or when c.Timeout passes.
func (e *Env) Start(c Cmd) *Proc {
	e.t.Helper()
	dir, args := e.argv(c, true)
	if c.Timeout == 0 {
		c.Timeout = 90 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	p := &Proc{done: make(chan struct{})}
	cmd := exec.CommandContext(ctx, e.Bin, args...)
	cmd.Dir = dir
	cmd.Env = append(e.Environ(), c.Env...)
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = &p.out, &p.err
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		e.t.Fatalf("claudetest: start claude: %v", err)
	}
	p.Cmd, p.Pid = cmd, cmd.Process.Pid
	go func() {
		err := cmd.Wait()
		timedOut := ctx.Err() == context.DeadlineExceeded
		cancel()
		p.res = Result{Stdout: p.out.String(), Stderr: p.err.String(), ExitCode: cmd.ProcessState.ExitCode()}
		if err != nil && timedOut {
			p.res.Stderr += fmt.Sprintf("\nclaudetest: killed after %v", c.Timeout)
		}
		// Tool subprocesses may outlive claude in its group: end them too.
		_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
		close(p.done)
	}()
	e.t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
			<-p.done
		}
	})
	return p
}

// Wait waits for the process to end.
func (p *Proc) Wait() Result {
	<-p.done
	return p.res
}

// Done is closed when the process has ended.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Headless runs claude -p to the end.
func (e *Env) Headless(c Cmd) Result {
	e.t.Helper()
	return e.Start(c).Wait()
}

// WaitFor polls cond every 50 ms until it returns true, and fails the test
// naming what after timeout. cond's last error is put in the message.
func (e *Env) WaitFor(what string, timeout time.Duration, cond func() (bool, error)) {
	e.t.Helper()
	if err := Poll(timeout, cond); err != nil {
		e.t.Fatalf("claudetest: waiting for %s: %v", what, err)
	}
}

// Poll calls cond every 50 ms until it returns true or timeout passes.
func Poll(timeout time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		ok, err := cond()
		if ok {
			return nil
		}
		last = err
		if time.Now().After(deadline) {
			if last != nil {
				return fmt.Errorf("timed out after %v: %w", timeout, last)
			}
			return fmt.Errorf("timed out after %v", timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Registry is one sessions/<pid>.json record, decoded as a map (the field
// order and set vary), with the file it came from.
type Registry struct {
	Path   string
	Raw    []byte
	Fields map[string]any
}

// ReadRegistry reads sessions/<pid>.json; a torn write (the CLI writes in
// place) shows up as an error, so callers retry.
func (e *Env) ReadRegistry(pid int) (Registry, error) {
	p := filepath.Join(e.SessionsDir(), fmt.Sprintf("%d.json", pid))
	b, err := os.ReadFile(p)
	if err != nil {
		return Registry{}, err
	}
	r := Registry{Path: p, Raw: b}
	if err := json.Unmarshal(b, &r.Fields); err != nil {
		return Registry{}, fmt.Errorf("%s: %w", p, err)
	}
	return r, nil
}

// WaitRegistry waits until sessions/<pid>.json exists, parses, and
// satisfies pred (nil: any record).
func (e *Env) WaitRegistry(pid int, timeout time.Duration, pred func(Registry) bool) Registry {
	e.t.Helper()
	var r Registry
	e.WaitFor(fmt.Sprintf("registry record sessions/%d.json", pid), timeout, func() (bool, error) {
		var err error
		r, err = e.ReadRegistry(pid)
		if err != nil {
			return false, err
		}
		return pred == nil || pred(r), errors.New("record does not satisfy the condition yet: " + string(r.Raw))
	})
	return r
}

// KeyFiles lists the sessions/<pid>.<hash>.key files of pid.
func (e *Env) KeyFiles(pid int) []string {
	m, _ := filepath.Glob(filepath.Join(e.SessionsDir(), fmt.Sprintf("%d.*.key", pid)))
	return m
}

var nonAlnum = regexp.MustCompile(`[^A-Za-z0-9]`)

// Slug is the projects/ dir name of a cwd (paths up to 200 chars; the CLI
// resolves symlinks first, so pass a resolved path).
func Slug(dir string) string { return nonAlnum.ReplaceAllString(dir, "-") }

// TranscriptPath is where the transcript of session id started in dir lives.
func (e *Env) TranscriptPath(dir, sessionID string) string {
	return filepath.Join(e.ProjectsDir(), Slug(dir), sessionID+".jsonl")
}

// Transcripts lists the main transcripts (projects/*/*.jsonl), sorted.
func (e *Env) Transcripts() []string {
	m, _ := filepath.Glob(filepath.Join(e.ProjectsDir(), "*", "*.jsonl"))
	sort.Strings(m)
	return m
}

// WaitTranscript waits until path exists and has a line containing substr
// ("" = any content), and returns the file's content.
func (e *Env) WaitTranscript(path, substr string, timeout time.Duration) string {
	e.t.Helper()
	var data []byte
	e.WaitFor(fmt.Sprintf("%s containing %q", path, substr), timeout, func() (bool, error) {
		var err error
		data, err = os.ReadFile(path)
		if err != nil {
			return false, err
		}
		return len(data) > 0 && bytes.Contains(data, []byte(substr)), nil
	})
	return string(data)
}

// ReadJSONL decodes each ended line of a JSONL file as a map (for assertions on
// small test transcripts; production code streams).
func ReadJSONL(path string) ([]map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// A live session may be writing its next line: only ended lines are
	// records (Claude Code ends every one with a newline).
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	var out []map[string]any
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		out = append(out, m)
	}
	return out, nil
}
