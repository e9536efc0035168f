package hooks

import (
	"encoding/json"
	"testing"
)

// A PostToolUse rewrite for an MCP tool carries both names; raw JSON
// output objects go through as given.
func TestPostToolUseReplyMCP(t *testing.T) {
	out := json.RawMessage(`[{"type":"text","text":"token: [REDACTED:github-token]"}]`)
	r, err := PostToolUseReply{Common: Common{SystemMessage: "masked"}, UpdatedToolOutput: out, UpdatedMCPToolOutput: out}.Build()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"systemMessage":"masked","hookSpecificOutput":{"hookEventName":"PostToolUse",` +
		`"updatedToolOutput":[{"type":"text","text":"token: [REDACTED:github-token]"}],` +
		`"updatedMCPToolOutput":[{"type":"text","text":"token: [REDACTED:github-token]"}]}}`
	if string(r.JSON()) != want {
		t.Errorf("got  %s\nwant %s", r.JSON(), want)
	}
	if ps := Check(PostToolUse, r.JSON()); len(ps) > 0 {
		t.Errorf("problems: %v", ps)
	}
}
