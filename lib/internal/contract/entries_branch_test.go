package contract

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/cccassette"
	"github.com/ccpipe/ccpipe/lib/commands/ccentries"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// cc-entries --branch keeps what Claude Code itself rebuilds on resume.
// A session whose last turn ran three Bash calls in parallel (one
// assistant message written as a chain of records, each tool_result under
// its own tool_use) is resumed; the messages of the request the resumed
// session sends, up to the new prompt, are exactly the branch's blocks in
// file order (assistant text and tool_use ids, tool_result ids). Then the
// branch imports into the same cassette as the whole transcript.
func TestEntriesBranchMatchesResume(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{
			fakeapi.Text("Three at once."),
			fakeapi.ToolUse("Bash", map[string]any{"command": "sleep 0.4; echo par-one"}),
			fakeapi.ToolUse("Bash", map[string]any{"command": "sleep 0.8; echo par-two"}),
			fakeapi.ToolUse("Bash", map[string]any{"command": "echo par-three"}),
		}},
		{Match: "par-", Blocks: []fakeapi.Block{fakeapi.Text("All three ran.")}},
		{Match: "branch-resume", Blocks: []fakeapi.Block{fakeapi.Text("Resumed.")}},
	}}})
	dir := e.Project("branch")
	res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "run three", AllowedTools: []string{"Bash"}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d: %s", res.ExitCode, res.Stderr)
	}
	paths := e.Transcripts()
	if len(paths) != 1 {
		t.Fatalf("transcripts: %v", paths)
	}
	// The transcript as it was before the resume appends to it.
	raw, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(t.TempDir(), filepath.Base(paths[0]))
	if err := os.WriteFile(snap, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	sid := strings.TrimSuffix(filepath.Base(snap), ".jsonl")

	var branch, errb bytes.Buffer
	if code := ccentries.RunWith(cli.System{}, []string{"--branch", snap}, nil, &branch, &errb); code != 0 {
		t.Fatalf("cc-entries --branch: exit %d: %s", code, errb.String())
	}
	want := branchBlocks(t, branch.Bytes())
	if n := strings.Count(strings.Join(want, " "), "tool_result:"); n != 3 {
		t.Fatalf("branch holds %d tool results, want 3: %v", n, want)
	}

	res = e.Headless(claudetest.Cmd{Dir: dir, Prompt: "branch-resume", Args: []string{"--resume", sid}})
	if res.ExitCode != 0 {
		t.Fatalf("claude --resume exit %d: %s", res.ExitCode, res.Stderr)
	}
	var sent []json.RawMessage
	for _, r := range e.API.Requests() {
		if r.Kind == "script" && strings.Contains(r.LastUserText(), "branch-resume") {
			var body struct {
				Messages []json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal(r.Body, &body); err != nil {
				t.Fatal(err)
			}
			sent = body.Messages
			break
		}
	}
	if len(sent) == 0 {
		t.Fatal("the resumed session sent no request with the new prompt")
	}
	got := requestBlocks(t, sent[:len(sent)-1]) // up to the new prompt
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resumed request's messages:\n  %v\nbranch:\n  %v", got, want)
	}

	// cc-entries --branch T | cc-cassette import == cc-cassette import T.
	var whole, piped bytes.Buffer
	errb.Reset()
	if code := cccassette.RunWith(cli.System{}, []string{"import", snap}, nil, &whole, &errb); code != 0 {
		t.Fatalf("import T: exit %d: %s", code, errb.String())
	}
	if code := cccassette.RunWith(cli.System{}, []string{"import"}, bytes.NewReader(branch.Bytes()), &piped, &errb); code != 0 {
		t.Fatalf("cc-entries --branch T | cc-cassette import: exit %d: %s", code, errb.String())
	}
	if whole.String() != piped.String() {
		t.Errorf("the branch imports differently from the transcript:\n%s\n---\n%s", piped.String(), whole.String())
	}
	if n := strings.Count(whole.String(), `"type":"tool_call"`); n != 3 {
		t.Errorf("cassette has %d tool_call steps, want 3", n)
	}
}

// block is one content block as the comparison sees it.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

func blockKeys(role string, content json.RawMessage) []string {
	var blocks []block
	if json.Unmarshal(content, &blocks) != nil {
		return nil // a string: a prompt
	}
	var out []string
	for _, b := range blocks {
		switch {
		case role == "assistant" && b.Type == "text":
			out = append(out, "text:"+b.Text)
		case role == "assistant" && b.Type == "tool_use":
			out = append(out, "tool_use:"+b.ID)
		case role == "user" && b.Type == "tool_result":
			out = append(out, "tool_result:"+b.ToolUseID)
		}
	}
	return out
}

// branchBlocks lists the dialogue blocks of transcript lines in order.
func branchBlocks(t *testing.T, ndjson []byte) []string {
	t.Helper()
	var out []string
	for _, line := range bytes.Split(bytes.TrimSpace(ndjson), []byte("\n")) {
		var r struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		if r.Type == "user" || r.Type == "assistant" {
			out = append(out, blockKeys(r.Type, r.Message.Content)...)
		}
	}
	return out
}

// requestBlocks lists the dialogue blocks of API messages in order.
func requestBlocks(t *testing.T, msgs []json.RawMessage) []string {
	t.Helper()
	var out []string
	for _, m := range msgs {
		var r struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(m, &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, blockKeys(r.Role, r.Content)...)
	}
	return out
}
