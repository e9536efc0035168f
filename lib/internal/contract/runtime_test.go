package contract

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/commands/ccprofiles"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
	"github.com/ccpipe/ccpipe/lib/profiles"
)

// checkTranscript checks every record of a transcript against its shape
// and returns the records.
func checkTranscript(t *testing.T, path string) []map[string]any {
	t.Helper()
	recs, err := claudetest.ReadJSONL(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		for _, err := range Check(r) {
			t.Errorf("%s line %d: %v", filepath.Base(path), i+1, err)
		}
	}
	return recs
}

func checkRegistry(t *testing.T, r claudetest.Registry) {
	t.Helper()
	for _, err := range CheckShape(Shapes["registry"], r.Fields) {
		t.Errorf("%s: %v", filepath.Base(r.Path), err)
	}
}

// checkKey checks the key file next to a registry record: named after the
// SHA-256 of the socket path, mode 0600, holding peerToken/procStart/pidDomain.
func checkKey(t *testing.T, e *claudetest.Env, r claudetest.Registry) {
	t.Helper()
	pid := int(r.Fields["pid"].(float64))
	sock, _ := r.Fields["messagingSocketPath"].(string)
	sum := sha256.Sum256([]byte(sock))
	want := filepath.Join(e.SessionsDir(), fmt.Sprintf("%d.%s.key", pid, hex.EncodeToString(sum[:])))
	fi, err := os.Stat(want)
	if err != nil {
		t.Errorf("key file: %v (have %v)", err, e.KeyFiles(pid))
		return
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(want)
	var k map[string]any
	if err := json.Unmarshal(b, &k); err != nil {
		t.Fatalf("key file is not JSON: %v", err)
	}
	for _, f := range []string{"peerToken", "procStart", "pidDomain"} {
		if _, ok := k[f].(string); !ok {
			t.Errorf("key file: field %s: want string", f)
		}
	}
	if k["procStart"] != r.Fields["procStart"] {
		t.Errorf("key procStart %v, record %v", k["procStart"], r.Fields["procStart"])
	}
}

// procStart is field 22 of /proc/<pid>/stat, as the registry stores it.
func procStart(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	rest := string(b[bytes.LastIndexByte(b, ')')+2:])
	return strings.Fields(rest)[19]
}

// A headless run registers while it runs (record + key, removed at exit)
// and writes its transcript at projects/<slug>/<session>.jsonl.
func TestHeadlessTranscriptAndRegistry(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("Checking."), fakeapi.ToolUse("Bash", map[string]any{"command": "sleep 3; echo contract-ok"})}},
		{Match: "contract-ok", Blocks: []fakeapi.Block{fakeapi.Text("All good.")}},
	}}})
	dir := e.Project("alpha")
	p := e.Start(claudetest.Cmd{Dir: dir, Prompt: "run the check", AllowedTools: []string{"Bash"}})
	reg := e.WaitRegistry(p.Pid, 30*time.Second, nil)
	checkRegistry(t, reg)
	checkKey(t, e, reg)
	for k, want := range map[string]any{"pid": float64(p.Pid), "cwd": dir, "version": claudetest.Version,
		"kind": "interactive", "entrypoint": "sdk-cli"} {
		if reg.Fields[k] != want {
			t.Errorf("registry %s = %v, want %v", k, reg.Fields[k], want)
		}
	}
	res := p.Wait()
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "All good.") {
		t.Fatalf("claude -p: exit %d\nstdout: %s\nstderr: %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if _, err := os.Stat(reg.Path); !os.IsNotExist(err) {
		t.Errorf("registry record still there after exit: %v", err)
	}
	if k := e.KeyFiles(p.Pid); len(k) != 0 {
		t.Errorf("key files still there after exit: %v", k)
	}
	sid := reg.Fields["sessionId"].(string)
	path := e.TranscriptPath(dir, sid)
	if got := e.Transcripts(); len(got) != 1 || got[0] != path {
		t.Fatalf("transcripts %v, want [%s]", got, path)
	}
	recs := checkTranscript(t, path)
	var sawTool, sawResult bool
	for _, r := range recs {
		if r["type"] == "assistant" {
			if c, _ := lookup(r, "message.content.0.name"); c == "Bash" {
				sawTool = true
			}
		}
		if c, _ := lookup(r, "message.content.0.content"); r["type"] == "user" && c == "contract-ok" {
			sawResult = true
			if v, _ := lookup(r, "message.content.0.is_error"); v != false {
				t.Errorf("Bash success: is_error %v, want false", v)
			}
		}
		if s, ok := r["sessionId"]; ok && s != sid {
			t.Errorf("record sessionId %v, want %s", s, sid)
		}
	}
	if !sawTool || !sawResult {
		t.Errorf("transcript lacks the Bash tool_use (%v) or its result (%v)", sawTool, sawResult)
	}
	var gotResult bool
	for _, r := range e.API.Requests() {
		gotResult = gotResult || r.Contains("contract-ok")
	}
	if !gotResult {
		t.Error("the fake API never received the tool result")
	}
}

// An interactive session writes sessions/<pid>.json with the spec's
// fields, removes it on /exit, and leaves it behind when killed.
func TestInteractiveRegistry(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("pong-from-fake")}},
	}}})
	dir := e.Project("beta")
	s := e.Interactive(claudetest.Cmd{Dir: dir, Args: []string{"-n", "contract-one"}})
	s.WaitReady(40 * time.Second)
	reg := e.WaitRegistry(s.Pid, 10*time.Second, func(r claudetest.Registry) bool {
		return r.Fields["nameSource"] != nil && r.Fields["status"] == "idle"
	})
	checkRegistry(t, reg)
	checkKey(t, e, reg)
	for k, want := range map[string]any{"pid": float64(s.Pid), "cwd": dir, "version": claudetest.Version,
		"kind": "interactive", "entrypoint": "cli", "name": "contract-one", "nameSource": "user",
		"peerProtocol": float64(1), "procStart": procStart(t, s.Pid)} {
		if reg.Fields[k] != want {
			t.Errorf("registry %s = %v, want %v", k, reg.Fields[k], want)
		}
	}
	if tm, _ := reg.Fields["tmux"].(string); !strings.HasPrefix(tm, s.Name+":@") {
		t.Errorf("registry tmux = %q, want %s:@<window>.%%<pane>", tm, s.Name)
	}
	sock, _ := reg.Fields["messagingSocketPath"].(string)
	if fi, err := os.Stat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Errorf("messaging socket %s: %v", sock, err)
	}
	if !strings.HasPrefix(sock, e.TmpDir+"/cc-socks/") {
		t.Errorf("socket %s not under CLAUDE_CODE_TMPDIR/cc-socks", sock)
	}
	if _, ok := reg.Fields["pidDomain"].(string); !ok || !strings.HasPrefix(reg.Fields["pidDomain"].(string), "linux:") {
		t.Errorf("pidDomain %v", reg.Fields["pidDomain"])
	}

	s.Type("ping")
	s.WaitScreen("pong-from-fake", 30*time.Second)
	e.WaitRegistry(s.Pid, 10*time.Second, func(r claudetest.Registry) bool {
		after, _ := r.Fields["statusUpdatedAt"].(float64)
		before, _ := reg.Fields["statusUpdatedAt"].(float64)
		return r.Fields["status"] == "idle" && after > before
	})
	sid := reg.Fields["sessionId"].(string)
	e.WaitTranscript(e.TranscriptPath(dir, sid), "pong-from-fake", 10*time.Second)
	checkTranscript(t, e.TranscriptPath(dir, sid))

	s.Exit(20 * time.Second)
	for _, f := range []string{reg.Path, sock} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s still there after /exit (%v)", f, err)
		}
	}

	// A crash leaves record, key and socket behind.
	k := e.Interactive(claudetest.Cmd{Dir: dir})
	kreg := k.WaitReady(40 * time.Second)
	if _, ok := kreg.Fields["status"]; ok {
		t.Logf("first record read already had a status: %s", kreg.Raw)
	}
	kreg = e.WaitRegistry(k.Pid, 10*time.Second, func(r claudetest.Registry) bool { return r.Fields["status"] == "idle" })
	checkRegistry(t, kreg)
	if kreg.Fields["nameSource"] != nil && kreg.Fields["nameSource"] != "derived" {
		t.Errorf("default name source %v, want derived", kreg.Fields["nameSource"])
	}
	k.Kill9()
	if _, err := os.Stat(kreg.Path); err != nil {
		t.Errorf("record gone after kill -9: %v", err)
	}
	if len(e.KeyFiles(k.Pid)) != 1 {
		t.Errorf("key files after kill -9: %v", e.KeyFiles(k.Pid))
	}
}

// cc-profiles lists the test config dir, both as $CLAUDE_CONFIG_DIR and as
// the default ~/.claude of a test HOME.
func TestProfilesFindsTestConfig(t *testing.T) {
	Require(t)
	t.Parallel()
	for _, inHome := range []bool{false, true} {
		e := claudetest.New(t, claudetest.Config{InHome: inHome})
		dir := e.Project("gamma")
		if res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "hello"}); res.ExitCode != 0 {
			t.Fatalf("claude -p: exit %d: %s", res.ExitCode, res.Stderr)
		}
		cfg, wantSource := "", "default"
		if !inHome {
			cfg, wantSource = e.ConfigDir, "env"
		}
		var out, errb bytes.Buffer
		if code := ccprofiles.RunWith(system(e.Home, cfg), nil, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("cc-profiles exit %d: %s", code, errb.String())
		}
		var found bool
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var p profiles.Profile
			if err := json.Unmarshal([]byte(line), &p); err != nil {
				t.Fatalf("cc-profiles output %q: %v", line, err)
			}
			if p.ConfigDir == e.ConfigDir {
				found = true
				if !p.Exists || p.Source != wantSource || p.ProjectsDir != e.ProjectsDir() {
					t.Errorf("profile %+v: want exists, source %s, projects %s", p, wantSource, e.ProjectsDir())
				}
			}
		}
		if !found {
			t.Errorf("inHome=%v: cc-profiles did not list %s:\n%s", inHome, e.ConfigDir, out.String())
		}
		if _, err := os.Stat(filepath.Join(e.ProjectsDir(), claudetest.Slug(dir))); err != nil {
			t.Errorf("inHome=%v: the run wrote no project dir: %v", inHome, err)
		}
	}
}
