package ccextract

import (
	"bytes"
	"encoding/json"
	"os"
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
	if want := "cc-extract: tools: 2 tool calls a fork copied from a session not read are left out: they are that session's (" + original + ")\n"; errb.String() != want {
		t.Errorf("fork alone: stderr %q, want %q", errb.String(), want)
	}
}

// TestForkCopiedConversation (issue 35): a fork's copied prompts, texts
// and turns are the facts of the session that made them, as its tool
// calls are: on the fork corpus, read in either order, every prompt and
// text is listed once (by its uuid), under the session whose transcript
// first holds it; each fork keeps only its own prompt and answer; a fork
// read alone leaves the copies out and counts them.
func TestForkCopiedConversation(t *testing.T) {
	dir := "../../../testdata/corpus-fork/claude/projects/-home-dev-projects-forks"
	all, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	reversed := []string{all[3], all[2], all[1], all[0]}
	// The prompts each session typed itself (the forks' one each; the
	// original's two, FIRST and, after the resume, AGAIN).
	own := map[string][]string{
		"f0a1f001-0000-4000-8000-000000000001": {"FIRST", "AGAIN"},
		"f0a1f002-0000-4000-8000-000000000002": {"FORKED"},
		"f0a1f003-0000-4000-8000-000000000003": {"GRANDCHILD"},
		"f0a1f004-0000-4000-8000-000000000004": {"FAILFORK"},
	}
	for _, kind := range []string{"prompts", "texts", "conversation"} {
		for _, paths := range [][]string{all, reversed} {
			var out, errb bytes.Buffer
			if code := Run(append([]string{kind}, paths...), nil, &out, &errb); code != 0 || errb.Len() > 0 {
				t.Fatalf("%s: exit %d: %s", kind, code, errb.String())
			}
			uuids := map[string]int{}
			got := map[string][]string{}
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				var f struct {
					SessionID string `json:"session_id"`
					UUID      string `json:"uuid"`
					Text      string `json:"text"`
					Role      string `json:"role"`
				}
				if err := json.Unmarshal([]byte(line), &f); err != nil {
					t.Fatal(err)
				}
				uuids[f.UUID+f.Text]++
				if kind == "prompts" || f.Role == "user" {
					got[f.SessionID] = append(got[f.SessionID], strings.Fields(f.Text)[0])
				}
			}
			for u, n := range uuids {
				if n != 1 {
					t.Errorf("%s: %q listed %d times", kind, u, n)
				}
			}
			if kind != "texts" {
				for sid, want := range own {
					if strings.Join(got[sid], " ") != strings.Join(want, " ") {
						t.Errorf("%s: %s's prompts %q, want %q", kind, sid[:8], got[sid], want)
					}
				}
			}
		}
	}
	// Entries on stdin, no file boundary said (the transcripts' lines
	// one after another): the same facts as the files give.
	for _, kind := range []string{"prompts", "texts", "conversation"} {
		var stdin, files, piped, errb bytes.Buffer
		for _, p := range all {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			stdin.Write(b)
		}
		Run(append([]string{kind}, all...), nil, &files, &errb)
		if code := Run([]string{kind}, &stdin, &piped, &errb); code != 0 || piped.String() != files.String() || errb.Len() > 0 {
			t.Errorf("%s on stdin: exit %d %s\n%s\nfiles:\n%s", kind, code, errb.String(), piped.String(), files.String())
		}
	}
	var out, errb bytes.Buffer
	fork := filepath.Join(dir, "f0a1f002-0000-4000-8000-000000000002.jsonl")
	if code := Run([]string{"prompts", fork}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), `"text":"FORKED`) || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("fork alone: exit %d, %q", code, out.String())
	}
	if want := "cc-extract: prompts: 1 prompts a fork copied from a session not read are left out: they are that session's (f0a1f001-0000-4000-8000-000000000001)\n"; errb.String() != want {
		t.Errorf("fork alone: stderr %q, want %q", errb.String(), want)
	}
}
