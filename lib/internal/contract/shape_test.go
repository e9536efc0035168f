package contract

import (
	"encoding/json"
	"strings"
	"testing"
)

// A real assistant record of 2.1.328 (from a fake-API run), trimmed.
const assistantLine = `{"parentUuid":"11111111-1111-4111-8111-111111111111","isSidechain":false,"message":{"id":"msg_fake_t000","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"Running it."}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":1500,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":120}},"apiBlockIndex":1,"requestRef":"r","type":"assistant","uuid":"22222222-2222-4222-8222-222222222222","timestamp":"2026-11-30T10:33:40.001Z","userType":"external","entrypoint":"sdk-cli","cwd":"/home/dev/projects/alpha","sessionId":"33333333-3333-4333-8333-333333333333","version":"2.1.328","gitBranch":"HEAD"}`

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCheckerCatchesDrift runs without the CLI: it proves that a changed
// record fails the checker with a message naming the record type and field.
func TestCheckerCatchesDrift(t *testing.T) {
	if errs := Check(decode(t, assistantLine)); len(errs) != 0 {
		t.Fatalf("unchanged record: %v", errs)
	}
	tests := []struct {
		name   string
		change func(m map[string]any)
		want   string
	}{
		{"field removed", func(m map[string]any) {
			delete(m["message"].(map[string]any)["usage"].(map[string]any), "input_tokens")
		}, "assistant record: field message.usage.input_tokens: want number, got missing"},
		{"type changed", func(m map[string]any) {
			m["message"].(map[string]any)["usage"].(map[string]any)["output_tokens"] = "120"
		}, "assistant record: field message.usage.output_tokens: want number, got string"},
		{"envelope field", func(m map[string]any) { m["isSidechain"] = "false" },
			"assistant record: field isSidechain: want bool, got string"},
		{"optional field with wrong type", func(m map[string]any) { m["apiBlockIndex"] = nil },
			"assistant record: field apiBlockIndex: want number, got null"},
		{"content no longer an array", func(m map[string]any) { m["message"].(map[string]any)["content"] = "x" },
			"assistant record: field message.content: want array, got string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := decode(t, assistantLine)
			tt.change(m)
			errs := Check(m)
			var msgs []string
			for _, e := range errs {
				msgs = append(msgs, e.Error())
			}
			if !strings.Contains(strings.Join(msgs, "\n"), tt.want) {
				t.Errorf("errors %q, want one %q", msgs, tt.want)
			}
		})
	}
}

func TestShapeKey(t *testing.T) {
	tests := []struct{ rec, want string }{
		{`{"type":"system","subtype":"api_error"}`, "system system/api_error"},
		{`{"type":"system","subtype":"new_subtype"}`, "system"},
		{`{"type":"user","message":{"content":[{"type":"tool_result"}]}}`, "user user/tool_result"},
		{`{"type":"user","message":{"content":"hi"}}`, "user"},
		{`{"type":"registry"}`, ""},
		{`{"type":"brand-new-type"}`, ""},
		{`{}`, ""},
	}
	for _, tt := range tests {
		if got := strings.Join(ShapeKey(decode(t, tt.rec)), " "); got != tt.want {
			t.Errorf("ShapeKey(%s) = %q, want %q", tt.rec, got, tt.want)
		}
	}
	errs := CheckShape(Shapes["registry"], decode(t, `{"pid":"12"}`))
	if len(errs) == 0 || !strings.HasPrefix(errs[0].Error(), "registry record: field pid: want number, got string") {
		t.Errorf("registry errors %v", errs)
	}
}
