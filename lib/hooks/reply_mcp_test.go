package hooks

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
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

// A Streamed value prints where a built value would, byte for byte (the
// twin of the test above); a system message that spells the mark does
// not move it, and the value's error is Write's.
func TestPostToolUseReplyStreamed(t *testing.T) {
	const out = `[{"type":"text","text":"token: [REDACTED:github-token] \" \\\" \\"}]`
	calls := 0
	stream := Streamed(func(w io.Writer) error {
		calls++
		// As sent, with white space between tokens; printed compact.
		_, err := io.WriteString(w, "[ {\"type\": \"text\",\n\t\"text\" :"+out[23:len(out)-2]+"} ]")
		return err
	})
	msg := `masked {"\u0000stream":0} in mcp__x`
	built, err := PostToolUseReply{Common: Common{SystemMessage: msg}, UpdatedToolOutput: json.RawMessage(out), UpdatedMCPToolOutput: json.RawMessage(out)}.Build()
	if err != nil {
		t.Fatal(err)
	}
	r, err := PostToolUseReply{Common: Common{SystemMessage: msg}, UpdatedToolOutput: stream, UpdatedMCPToolOutput: stream}.Build()
	if err != nil {
		t.Fatal(err)
	}
	var got, want strings.Builder
	if _, err := built.Write(&want, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Write(&got, io.Discard); err != nil || got.String() != want.String() || calls != 2 {
		t.Errorf("streamed (%v, %d calls):\n%s\nbuilt:\n%s", err, calls, got.String(), want.String())
	}
	failing := Streamed(func(io.Writer) error { return errors.New("read error") })
	r, err = PostToolUseReply{UpdatedToolOutput: failing}.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Write(io.Discard, io.Discard); err == nil || err.Error() != "read error" {
		t.Errorf("a failing stream: %v", err)
	}
}
