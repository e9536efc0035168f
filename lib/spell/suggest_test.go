package spell

import "testing"

func TestSuggest(t *testing.T) {
	events := []string{"PreToolUse", "PostToolUse", "Stop", "SubagentStop"}
	for _, tt := range []struct {
		word string
		in   []string
		want string
	}{
		{"PreTooluse", events, "PreToolUse"}, // case only
		{"pretooluse", events, "PreToolUse"},
		{"PostTolUse", events, "PostToolUse"},
		{"Stpo", events, "Stop"}, // a swap, in a short word
		{"Sub", events, "SubagentStop"},
		{"PreToolUse", events, ""}, // no suggestion for a real name
		{"Nothing", events, ""},
		{"decison", []string{"decision", "reason"}, "decision"},
		{"", events, ""},
	} {
		if got := Suggest(tt.word, tt.in); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
	if got := DidYouMean("decison", []string{"decision"}); got != "; did you mean decision?" {
		t.Errorf("DidYouMean: %q", got)
	}
}
