package contract

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// An MCP tool's output (a stdio server, testdata/mcpvault, whose one tool
// returns a text holding a fake GitHub token): with cc-redact --hook on
// PostToolUse, the model's next request and the transcript hold the
// masked text, not the token. The hook's payload carries the content
// array; its reply gives it back masked, as updatedToolOutput (which
// 2.1.328 reads for every tool) and updatedMCPToolOutput.
func TestRedactHookMasksMCPOutput(t *testing.T) {
	Require(t)
	t.Parallel()
	redact := filepath.Join(golden.Build(t, "cc-redact"), "cc-redact")
	vault := filepath.Join(golden.Build(t, "./testdata/mcpvault"), "mcpvault")
	token := "ghp_Mc9pVb2nQ4" + strings.Repeat("Rt5yUi7oP3", 3)[:26]
	e := claudetest.New(t, claudetest.Config{
		Env: []string{"MCPVAULT_TEXT=VAULT_TOKEN=" + token},
		Script: &fakeapi.Script{Turns: []fakeapi.Turn{
			{Blocks: []fakeapi.Block{fakeapi.ToolUse("mcp__vault__get", map[string]any{})}},
			{Match: `VAULT_TOKEN=\[REDACTED:github-token\]`, Blocks: []fakeapi.Block{fakeapi.Text("Saw the masked token.")}},
		}}})
	mcp, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"vault": map[string]any{"command": vault}}})
	dir := e.Project("redact-mcp")
	res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "get the vault text", AllowedTools: []string{"mcp__vault__get"},
		Args: []string{"--mcp-config", e.WriteFile("mcp.json", string(mcp), 0o644), "--strict-mcp-config"},
		Settings: map[string]any{"hooks": map[string]any{"PostToolUse": []any{map[string]any{
			"hooks": []any{map[string]any{"type": "command", "command": redact + " --hook"}}}}}}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d: %s", res.ExitCode, res.Stderr)
	}
	if !strings.Contains(res.Stdout, "Saw the masked token.") {
		t.Fatalf("the model never saw the masked text: %q", res.Stdout)
	}
	for _, r := range e.API.Requests() {
		if bytes.Contains(r.Body, []byte(token)) {
			t.Errorf("request %d (%s) holds the token", r.Seq, r.Kind)
		}
	}
	paths := e.Transcripts()
	if len(paths) != 1 {
		t.Fatalf("transcripts: %v", paths)
	}
	raw, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(token)) {
		t.Error("the transcript holds the token")
	}
	if !bytes.Contains(raw, []byte(`VAULT_TOKEN=[REDACTED:github-token]`)) {
		t.Error("the transcript does not hold the masked text")
	}
}
