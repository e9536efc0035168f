package contract

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/commands/ccextract"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// The sessions of TestBillingFork, in the order they run.
const (
	forkOrig   = "f0a1f001-0000-4000-8000-000000000001" // Bash, a foreground subagent; resumed after the forks
	forkChild  = "f0a1f002-0000-4000-8000-000000000002" // --resume orig --fork-session
	forkGrand  = "f0a1f003-0000-4000-8000-000000000003" // --resume child --fork-session
	forkFailed = "f0a1f004-0000-4000-8000-000000000004" // --resume orig --fork-session, its only call fails (HTTP 400)
)

// TestBillingFork makes forks with the real binary and checks that a
// fork's copied messages count once, in the original (issue 23 items 1
// and 2): Claude Code 2.1.328 copies the original's records into the
// fork's transcript with their uuids, timestamps, message and request ids,
// under the fork's sessionId and with requestSessionId naming the session
// that made the request (kept through a fork of a fork). With
// CCPIPE_FORK_CORPUS_OUT=$PWD/testdata/corpus-fork it writes the sessions
// there (TestBillingCorpus checks them without the CLI).
func TestBillingFork(t *testing.T) {
	Require(t)
	t.Parallel()
	u := func(in, out, cr, cw int) *fakeapi.Usage {
		return &fakeapi.Usage{InputTokens: in, OutputTokens: out, CacheReadInputTokens: cr, CacheCreationInputTokens: cw}
	}
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Name: "orig: bash", Match: "FIRST", Blocks: []fakeapi.Block{fakeapi.Text("Running."), fakeapi.ToolUse("Bash", map[string]any{"command": "echo bash-one-ok"})}, Usage: u(1200, 150, 30000, 2000)},
		{Name: "orig: agent", Match: "bash-one-ok", Blocks: []fakeapi.Block{fakeapi.ToolUse("Agent", map[string]any{
			"description": "Fork check", "subagent_type": "general-purpose", "run_in_background": false, "prompt": "SUBTASK-FORK: report."})}, Usage: u(800, 60, 32000, 500)},
		{Name: "sub: report", Match: "SUBTASK-FORK", Blocks: []fakeapi.Block{fakeapi.Text("Sub report ready.")}, Usage: u(300, 40, 0, 1000)},
		{Name: "orig: done", Match: "Sub report ready", Blocks: []fakeapi.Block{fakeapi.Text("First done.")}, Usage: u(900, 70, 33000, 100)},
		{Name: "child", Match: "FORKED", Blocks: []fakeapi.Block{fakeapi.Text("Fork answer.")}, Usage: u(1000, 80, 34000, 300)},
		{Name: "grandchild", Match: "GRANDCHILD", Blocks: []fakeapi.Block{fakeapi.Thinking("Hm."), fakeapi.Text("Grandchild answer.")}, Usage: u(1100, 90, 35000, 200)},
		{Name: "orig again", Match: "AGAIN", Blocks: []fakeapi.Block{fakeapi.Text("Original again.")}, Usage: u(700, 50, 36000, 400)},
		{Name: "failed fork", Match: "FAILFORK", Status: 400, Times: -1},
	}}})
	dir := e.Project("forks")
	for _, r := range []struct {
		prompt string
		args   []string
		exit   int
	}{
		{"FIRST prompt: run a command and a subagent", []string{"--session-id", forkOrig}, 0},
		{"FORKED prompt", []string{"--resume", forkOrig, "--fork-session", "--session-id", forkChild}, 0},
		{"GRANDCHILD prompt", []string{"--resume", forkChild, "--fork-session", "--session-id", forkGrand}, 0},
		{"AGAIN prompt", []string{"--resume", forkOrig}, 0},
		{"FAILFORK prompt", []string{"--resume", forkOrig, "--fork-session", "--session-id", forkFailed}, 1},
	} {
		res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: r.prompt, Args: r.args, AllowedTools: []string{"Bash", "Agent"},
			Env: []string{"CLAUDE_CODE_MAX_RETRIES=0"}})
		if res.ExitCode != r.exit {
			t.Fatalf("%v: exit %d, want %d\nstdout: %s\nstderr: %s", r.args, res.ExitCode, r.exit, res.Stdout, res.Stderr)
		}
	}
	if u := e.API.Unused(); len(u) > 0 {
		t.Fatalf("turns never requested: %v", u)
	}
	// What the binary wrote: the copies keep the ids and name the payer.
	copies := assistantOwners(t, e.TranscriptPath(dir, forkGrand))
	if copies["msg_fake_t000"] != forkOrig || copies["msg_fake_t004"] != forkChild || copies["msg_fake_t005"] != "" {
		t.Errorf("requestSessionId of the grandchild's records: %v", copies)
	}

	rows := checkBilling(t, e.ConfigDir)
	// orig: bash, agent, done, again and the subagent's report; child,
	// grandchild: their own answer; the failed fork: none, still listed.
	want := map[string]float64{forkOrig: 5, forkChild: 1, forkGrand: 1, forkFailed: 0}
	for id, n := range want {
		if rows[id] == nil || rows[id]["messages"].(float64) != n {
			t.Errorf("session %s: %v, want %v messages", id, rows[id], n)
		}
	}
	if len(rows) != len(want) {
		t.Errorf("%d sessions, want %d: %v", len(rows), len(want), rows)
	}
	// Whichever transcript is read first, the copies count in the original.
	paths := []string{e.TranscriptPath(dir, forkOrig), e.TranscriptPath(dir, forkChild), e.TranscriptPath(dir, forkGrand), e.TranscriptPath(dir, forkFailed)}
	rev := []string{paths[3], paths[2], paths[1], paths[0]}
	for _, args := range [][]string{{"usage", "--cost", "--sum", "session", "--subagents"}, {"usage", "--cost", "--subagents"}} {
		a, b := ccExtract(t, append(args, paths...)...), ccExtract(t, append(args, rev...)...)
		if !sameFacts(a, b) {
			t.Errorf("%v: the read order changes the facts:\n%v\n%v", args, a, b)
		}
	}
	// The fork alone: its copies are the original's calls, left out and
	// counted on stderr; its own call counts.
	var out, errb bytes.Buffer
	if code := ccextract.Run([]string{"usage", "--sum", "session", paths[2]}, nil, &out, &errb); code != 0 ||
		strings.Count(out.String(), "\n") != 1 || !strings.Contains(out.String(), `"session_id":"`+forkGrand+`"`) ||
		!strings.Contains(out.String(), `"messages":1,`) || !strings.Contains(errb.String(), "4 messages a fork copied") {
		t.Errorf("grandchild alone: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if out := os.Getenv("CCPIPE_FORK_CORPUS_OUT"); out != "" {
		writeForkCorpus(t, e, out)
	}
}

// assistantOwners maps each message id of a transcript's assistant records
// to their requestSessionId.
func assistantOwners(t *testing.T, path string) map[string]string {
	t.Helper()
	recs, err := claudetest.ReadJSONL(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, r := range recs {
		if r["type"] != "assistant" {
			continue
		}
		msg, _ := r["message"].(map[string]any)
		id, _ := msg["id"].(string)
		rs, _ := r["requestSessionId"].(string)
		m[id] = rs
	}
	return m
}

// sameFacts compares facts as sets of records (the per-message output
// follows the input order; the sums do not).
func sameFacts(a, b []map[string]any) bool {
	key := func(fs []map[string]any) map[string]int {
		m := map[string]int{}
		for _, f := range fs {
			j, _ := json.Marshal(f)
			m[string(j)]++
		}
		return m
	}
	return len(a) == len(b) && reflect.DeepEqual(key(a), key(b))
}

// writeForkCorpus copies the config dir's projects/ to out/claude: the
// temp root becomes /home/dev, the request-shape records (large, and of no
// use to billing) are left out.
func writeForkCorpus(t *testing.T, e *claudetest.Env, out string) {
	t.Helper()
	dst := filepath.Join(out, "claude")
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	oldSlug, newSlug := claudetest.Slug(e.Root), claudetest.Slug("/home/dev")
	rw := strings.NewReplacer(e.Root, "/home/dev", oldSlug, newSlug)
	err := filepath.WalkDir(e.ProjectsDir(), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".meta.json")) {
			return err
		}
		rel, _ := filepath.Rel(e.ConfigDir, p)
		target := filepath.Join(dst, rw.Replace(rel))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var keep bytes.Buffer
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var r struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(sc.Bytes(), &r) == nil && strings.HasPrefix(r.Type, "api-request") {
				continue
			}
			keep.WriteString(rw.Replace(sc.Text()))
			keep.WriteByte('\n')
		}
		return os.WriteFile(target, keep.Bytes(), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
