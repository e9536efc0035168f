package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: any input either fails with ErrNotPayload or parses into an
// event whose record is one line of valid JSON, and the typed tool view
// never panics.
func FuzzParse(f *testing.F) {
	for _, e := range Events {
		if data, err := os.ReadFile(filepath.Join(fixtures, e+".json")); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":7},"effort":{"level":[]}}`))
	f.Add([]byte(`{"hook_event_name":"X","event":1,"event":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := Parse(data)
		if err != nil {
			return
		}
		rec := Record(ev)
		if !json.Valid(rec) {
			t.Fatalf("invalid record %s", rec)
		}
		for _, c := range rec {
			if c == '\n' {
				t.Fatalf("record spans lines: %s", rec)
			}
		}
		if tc, ok := ev.(interface{ Tool() (any, []string) }); ok {
			tc.Tool()
		}
	})
}

// FuzzCheck: Check never panics on any stdout.
func FuzzCheck(f *testing.F) {
	f.Add("PreToolUse", []byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`))
	f.Add("", []byte(`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":1}}}`))
	f.Add("Stop", []byte(`{"continue":false,"async":false}`))
	f.Fuzz(func(t *testing.T, event string, data []byte) {
		for _, p := range Check(event, data) {
			if p.Kind != Rejected && p.Kind != Ignored && p.Kind != Incomplete {
				t.Fatalf("unknown kind %q", p.Kind)
			}
		}
	})
}
