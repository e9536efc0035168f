package ccextract

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestForkCopiesAreTheOriginals (issue 35): on the real fork corpus (an
// original, two forks and a fork of a fork, which copy its records with
// the same tool_use_ids), every tool call is a fact of the session that
// made it, once, whichever transcripts are read and in whatever order;
// a fork read alone leaves the copied calls out and says so.
func TestForkCopiesAreTheOriginals(t *testing.T) {
	dir := "../../../testdata/corpus-fork/claude/projects/-home-dev-projects-forks"
	all, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(all) != 4 {
		t.Fatalf("%d transcripts in the fork corpus", len(all))
	}
	const original = "f0a1f001-0000-4000-8000-000000000001"
	reversed := []string{all[3], all[2], all[1], all[0]}
	for _, kind := range []string{"tools", "shell", "files", "subagents", "failures"} {
		for _, paths := range [][]string{all, reversed} {
			var out, errb bytes.Buffer
			if code := Run(append([]string{kind}, paths...), nil, &out, &errb); code != 0 || errb.Len() > 0 {
				t.Fatalf("%s: exit %d: %s", kind, code, errb.String())
			}
			ids := map[string]int{}
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				if line == "" {
					continue
				}
				var f struct {
					SessionID string  `json:"session_id"`
					ToolUseID *string `json:"tool_use_id"`
				}
				if err := json.Unmarshal([]byte(line), &f); err != nil {
					t.Fatal(err)
				}
				if f.ToolUseID == nil {
					continue // a failure of no call (f0a1f004's own API error)
				}
				ids[*f.ToolUseID]++
				if f.SessionID != original {
					t.Errorf("%s: call %s listed under %s, not the original", kind, *f.ToolUseID, f.SessionID)
				}
			}
			for id, n := range ids {
				if n != 1 {
					t.Errorf("%s: call %s listed %d times", kind, id, n)
				}
			}
			if kind == "tools" && len(ids) != 2 {
				t.Errorf("tools: %d calls, want the original's 2", len(ids))
			}
		}
	}
	// A fork alone: its copies are the original's, left out and counted.
	var out, errb bytes.Buffer
	fork := filepath.Join(dir, "f0a1f003-0000-4000-8000-000000000003.jsonl")
	if code := Run([]string{"tools", fork}, nil, &out, &errb); code != 0 || out.Len() > 0 {
		t.Errorf("fork alone: exit %d, %q", code, out.String())
	}
	if want := "cc-extract: tools: 2 tool calls a fork copied from a session not read are left out: they count in that session (" + original + "); to count them here, add it to the input (cc-sessions --find " + original + " prints its record)\n"; errb.String() != want {
		t.Errorf("fork alone: stderr %q, want %q", errb.String(), want)
	}
}
