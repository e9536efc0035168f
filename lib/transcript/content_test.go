package transcript

import (
	"encoding/json"
	"testing"
)

// TestSummaries: what a table shows of a message, a text or a tool's
// input (ContentSummary, InputSummary).
func TestSummaries(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`"hello\nworld"`, "hello world"},
		{`{"role":"user","content":"a prompt"}`, "a prompt"},
		{`{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"Let me look."},{"type":"tool_use","name":"Bash","input":{}}]}`, "Let me look. · tool Bash"},
		{`[{"type":"tool_result","content":"\n\nExit code 1\nmore"}]`, "Exit code 1"},
		{`[{"type":"tool_result","content":[{"type":"text","text":"first\nsecond"}]}]`, "first"},
		{`{"type":"environment","snapshot":{}}`, "environment"},
		{`[]`, ""},
		{`[1,2]`, ""}, // not content blocks: nothing to say, no panic
		{`12`, "12"},
	} {
		if got := ContentSummary(json.RawMessage(tt.in)); got != tt.want {
			t.Errorf("ContentSummary(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{`{"command":"go test ./...","description":"run"}`, "go test ./..."},
		{`{"pattern":"func main","path":"src"}`, "func main in src"},
		{`{"file_path":"/a/b.go","old_string":"x"}`, "/a/b.go"},
		{`{"todos":[1]}`, `{"todos":[1]}`},
		{`"plain"`, "plain"},
		{`"two\nlines"`, "two lines"},
	} {
		if got := InputSummary(json.RawMessage(tt.in)); got != tt.want {
			t.Errorf("InputSummary(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestContentText: a string as it is, text blocks joined, and whether a
// tool result is among the blocks.
func TestContentText(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		result   bool
	}{
		{`"a prompt"`, "a prompt", false},
		{` [{"type":"text","text":"one"},{"type":"image"},{"type":"text","text":"two"}]`, "one\ntwo", false},
		{`[{"type":"tool_result","content":"x"},{"type":"text","text":"t"}]`, "t", true},
		{`null`, "", false},
		{``, "", false},
		{`{"text":"no"}`, "", false},
	} {
		got, result := ContentText(json.RawMessage(tt.in))
		if got != tt.want || result != tt.result {
			t.Errorf("ContentText(%s) = %q, %v; want %q, %v", tt.in, got, result, tt.want, tt.result)
		}
	}
}
