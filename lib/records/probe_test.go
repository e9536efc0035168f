package records

import (
	"io"
	"strings"
	"testing"
)

func TestProbe(t *testing.T) {
	session := `{"session_id":"s1","transcript_path":"/t.jsonl"}`
	entry := `{"type":"user","sessionId":"s1"}`
	big := strings.Repeat("x", 100<<10) // past the probe's buffer
	tests := []struct {
		name, in string
		found    bool
		kind     Kind
	}{
		{"session records", session + "\n" + entry + "\n", true, Session},
		{"blank and malformed lines first", "\n  \nnot json\n[1]\n" + entry + "\n" + big + "\n", true, Entry},
		{"no newline at the end", session, true, Session},
		{"nothing", "", false, Fact},
		{"only garbage", strings.Repeat("garbage\n", MaxProbe+5) + session + "\n", false, Fact},
	}
	for _, tt := range tests {
		first, found, replay := Probe(strings.NewReader(tt.in))
		if found != tt.found || (found && first.Kind != tt.kind) {
			t.Errorf("%s: found %v kind %v, want %v %v", tt.name, found, first.Kind, tt.found, tt.kind)
		}
		got, err := io.ReadAll(replay)
		if err != nil || string(got) != tt.in {
			t.Errorf("%s: replay is not the input (%d bytes of %d, %v)", tt.name, len(got), len(tt.in), err)
		}
	}
}
