package contract

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// cc-redact --hook, installed with what `cc-redact --print-settings`
// prints into the test HOME's ~/.claude/settings.json (the file it names),
// in a real session
// with three Bash calls (every key a fake, built by the command so that
// the command line does not hold it):
//
//  1. prints an Anthropic key and a GitHub token: the model's next
//     request holds the masked text and neither key, and no file of the
//     config dir (transcript included) holds them; a Read of a .env
//     holding an OpenAI key is masked the same way (Read's output shape);
//  2. prints a third key ahead of an output large enough for Claude Code
//     to save whole under tool-results/ before the hooks run: the model
//     gets the masked preview, the saved file keeps the key (a documented
//     gap) and the user's warning names that file;
//  3. prints a fourth key and fails: PostToolUseFailure cannot replace
//     the output, so the model gets the key (the other documented gap)
//     and the user is warned.
func TestRedactHookMasksToolOutput(t *testing.T) {
	Require(t)
	t.Parallel()
	bin := filepath.Join(golden.Build(t, "cc-redact"), "cc-redact")
	const antTail = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefGHIJKLmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUV-abcdefAA"
	ant := "sk-ant-api03-" + antTail
	gh := "ghp_Ab3dEf7hK9" + strings.Repeat("Qz8xWv2uT5", 3)[:26]
	big := "ghp_Zx9cVb2nM4" + strings.Repeat("Lk3jHg5fD7", 3)[:26]
	aws := "AKIAQX7ZR2TM4KVB9WLP"
	openai := "sk-proj-Ab3dEf7hK9Qz8xWv2uT5Lm4nOp6qRs"
	cmd1 := `k=sk-ant-api03-; echo "ANTHROPIC_API_KEY=${k}` + antTail + `"; echo "GH_TOKEN=ghp_$(printf 'Ab3dEf7hK9')$(printf 'Qz8xWv2uT5%.0s' 1 2 3 | head -c 26)"`
	cmd2 := `echo "GH_TOKEN=ghp_$(printf 'Zx9cVb2nM4')$(printf 'Lk3jHg5fD7%.0s' 1 2 3 | head -c 26)"; seq 1 40000`
	cmd3 := `echo "AWS_ACCESS_KEY_ID=AKI""AQX7ZR2TM4KVB9WLP"; exit 3`
	e := claudetest.New(t, claudetest.Config{InHome: true, Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.ToolUse("Bash", map[string]any{"command": cmd1})}},
	}}})
	dir := e.Project("redact-hook")
	env := filepath.Join(dir, ".env")
	if err := os.WriteFile(env, []byte("OPENAI_API_KEY="+openai+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := e.API.AddTurns(
		fakeapi.Turn{Match: `\[REDACTED:anthropic-api-key\]`, Blocks: []fakeapi.Block{fakeapi.ToolUse("Read", map[string]any{"file_path": env})}},
		fakeapi.Turn{Match: `OPENAI_API_KEY=\[REDACTED:openai-api-key\]`, Blocks: []fakeapi.Block{fakeapi.ToolUse("Bash", map[string]any{"command": cmd2})}},
		fakeapi.Turn{Match: "persisted-output", Blocks: []fakeapi.Block{fakeapi.ToolUse("Bash", map[string]any{"command": cmd3})}},
		fakeapi.Turn{Match: "Exit code 3", Blocks: []fakeapi.Block{fakeapi.Text("Saw masked keys.")}},
	); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{cmd1, cmd2, cmd3} {
		for _, k := range []string{ant, gh, big, aws} {
			if strings.Contains(c, k) {
				t.Fatal("a command line holds a key: the test would prove nothing")
			}
		}
	}

	// The settings as a user would install them.
	ps := exec.Command(bin, "--print-settings")
	ps.Env = []string{"HOME=" + e.Home, "PATH=" + os.Getenv("PATH")}
	var stdout, stderr bytes.Buffer
	ps.Stdout, ps.Stderr = &stdout, &stderr
	if err := ps.Run(); err != nil {
		t.Fatalf("cc-redact --print-settings: %v: %s", err, stderr.String())
	}
	settingsPath := filepath.Join(e.ConfigDir, "settings.json")
	if !strings.Contains(stderr.String(), settingsPath) || !json.Valid(stdout.Bytes()) {
		t.Fatalf("--print-settings: stdout not JSON or stderr does not name %s: %s", settingsPath, stderr.String())
	}
	if err := os.WriteFile(settingsPath, stdout.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "print the keys", AllowedTools: []string{"Bash", "Read"}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d: %s", res.ExitCode, res.Stderr)
	}
	if !strings.Contains(res.Stdout, "Saw masked keys.") {
		t.Fatalf("the script did not reach its end (the model never saw the masked text?): %q", res.Stdout)
	}

	// 1. The next request has the masked text; no request has the keys.
	var after1 *fakeapi.Request
	for _, r := range e.API.Requests() {
		for _, k := range []string{ant, gh, openai} {
			if bytes.Contains(r.Body, []byte(k)) {
				t.Errorf("request %d (%s) holds a key of call 1 or of the Read", r.Seq, r.Kind)
			}
		}
		if bytes.Contains(r.Body, []byte(big)) {
			t.Errorf("request %d holds the key of the large output", r.Seq)
		}
		if after1 == nil && r.Contains("ANTHROPIC_API_KEY=") {
			after1 = &r
		}
	}
	if after1 == nil || !after1.Contains("ANTHROPIC_API_KEY=[REDACTED:anthropic-api-key]") || !after1.Contains("GH_TOKEN=[REDACTED:github-token]") {
		t.Errorf("no request after call 1 with both keys masked")
	}

	// Every file of HOME and of Claude Code's temp dir: none holds the keys
	// of call 1 or of the Read; the large output's key only its
	// tool-results file.
	var transcript, saved string
	walk := func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(e.Root, path)
		for _, k := range []string{ant, gh, openai} {
			if bytes.Contains(b, []byte(k)) {
				t.Errorf("%s holds a key of call 1 or of the Read", rel)
			}
		}
		isSaved := filepath.Base(filepath.Dir(path)) == "tool-results"
		if bytes.Contains(b, []byte(big)) {
			if isSaved {
				saved = path
			} else {
				t.Errorf("%s holds the large output's key", rel)
			}
		}
		if strings.HasSuffix(path, ".jsonl") && filepath.Dir(filepath.Dir(path)) == e.ProjectsDir() {
			transcript = string(b)
		}
		return nil
	}
	// HOME (~/.claude, ~/.claude.json) and Claude Code's temp dir.
	for _, root := range []string{e.Home, e.TmpDir} {
		if err := filepath.WalkDir(root, walk); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{`ANTHROPIC_API_KEY=[REDACTED:anthropic-api-key]\nGH_TOKEN=[REDACTED:github-token]`, // tool_result and toolUseResult
		"cc-redact masked 2 secrets (anthropic-api-key, github-token) in the output of Bash"} { // the user's line
		if !strings.Contains(transcript, want) {
			t.Errorf("the transcript does not hold %q", want)
		}
	}

	// 2. The saved file keeps the key, and the user is told where.
	if saved == "" {
		t.Error("Claude Code no longer saves the large output before the hooks run: update the docs of --hook")
	} else if !strings.Contains(transcript, "Claude Code had already saved the whole output, unmasked, to "+saved) {
		t.Errorf("no warning naming %s", saved)
	}

	// 3. A failed call's output reaches the model unmasked; the user is
	// warned. (When this fails, Claude Code can now mask it: update the
	// docs.)
	reached := false
	for _, r := range e.API.Requests() {
		reached = reached || bytes.Contains(r.Body, []byte(aws))
	}
	if !reached {
		t.Error("the failed call's key did not reach the model: PostToolUseFailure changed, update the docs of --hook")
	}
	if !strings.Contains(transcript, "cc-redact: the output of a failed Bash call held a secret (aws-access-key-id)") {
		t.Error("no warning for the failed call")
	}
	// Where the user's lines go: the transcript, not the model.
	for _, r := range e.API.Requests() {
		if r.Contains("cc-redact masked") {
			t.Logf("request %d (%s) holds the hook's systemMessage", r.Seq, r.Kind)
		}
	}
}
