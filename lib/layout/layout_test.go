package layout

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSessionOfPath(t *testing.T) {
	const id = "65062edb-0000-4000-8000-000000000001"
	tests := []struct{ path, want string }{
		{"/h/.claude/projects/-home-x/" + id + ".jsonl", id},
		{"/h/.claude/projects/-home-x/" + id + ".jsonl.gz", id},
		{"/h/.claude/projects/-home-x/" + id + ".jsonl.zst", id},
		{"/h/.claude/projects/-home-x/" + id + "/subagents/agent-a1.jsonl", id},
		{"/h/.claude/projects/-home-x/" + id + "/tool-results/abc.txt", id},
		{"/h/.claude/projects/-home-x/" + id + "/custom-title.json", id},
		{"/h/.claude/projects/-home-x/notes.jsonl", ""},
		{"/h/.claude/projects/-home-x/" + id + ".jsonl.bak", ""},
		{"/h/.claude/projects/-home-x/memory/MEMORY.md", ""},
		{"/h/.claude/projects/" + id + ".jsonl", ""},
		{"/h/.claude/sessions/123.json", ""},
		{"/home/u/projects/work/.claude/projects/-x/" + id + ".jsonl", id},
		{"/h/.claude/projects/projects/" + id + "/subagents/a.jsonl", id},
		{"relative/projects/slug/" + id + ".jsonl", id},
		{"", ""},
	}
	for _, tt := range tests {
		if got := SessionOfPath(tt.path); got != tt.want {
			t.Errorf("SessionOfPath(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func FuzzSessionOfPath(f *testing.F) {
	f.Add("/h/.claude/projects/-x/65062edb-0000-4000-8000-000000000001/subagents/a.jsonl")
	f.Fuzz(func(t *testing.T, p string) {
		if id := SessionOfPath(p); id != "" && (!IsUUID(id) || !strings.Contains(p, id)) {
			t.Fatalf("%q mapped to %q", p, id)
		}
	})
}

func TestSubagentTranscript(t *testing.T) {
	for _, tt := range []struct {
		name, id         string
		compressed, isTr bool
	}{
		{"agent-a1b2.jsonl", "a1b2", false, true},
		{"agent-a1b2.jsonl.gz", "a1b2", true, true},
		{"agent-a1b2.jsonl.zst", "a1b2", true, true},
		{"agent-a1b2.meta.json", "", false, false},
		{"agent-.jsonl", "", false, false},
		{"notes.jsonl", "", false, false},
		{"agent-a1b2.jsonl.bak", "", false, false},
	} {
		id, compressed, ok := SubagentTranscript(tt.name)
		if id != tt.id || compressed != tt.compressed || ok != tt.isTr {
			t.Errorf("SubagentTranscript(%q) = %q, %v, %v; want %q, %v, %v", tt.name, id, compressed, ok, tt.id, tt.compressed, tt.isTr)
		}
	}
}

// TestSessionDirs: the session dir of a plain or compressed transcript,
// its subagents dir, and the dir a subagent's tool results lie in.
func TestSessionDirs(t *testing.T) {
	const p = "/c/projects/-x/"
	for _, tt := range []struct{ path, subagents, owner string }{
		{p + "s.jsonl", p + "s/subagents", p + "s"},
		{p + "s.jsonl.gz", p + "s/subagents", p + "s"},
		{p + "s.jsonl.zst", p + "s/subagents", p + "s"},
		{p + "s/subagents/agent-a.jsonl", p + "s/subagents/agent-a/subagents", p + "s"},
	} {
		if got := SubagentsDirOf(tt.path); got != tt.subagents {
			t.Errorf("SubagentsDirOf(%q) = %q, want %q", tt.path, got, tt.subagents)
		}
		if got := OwnerDir(tt.path); got != tt.owner {
			t.Errorf("OwnerDir(%q) = %q, want %q", tt.path, got, tt.owner)
		}
	}
	if ProjectsDir("/c") != "/c/projects" || SessionsDir("/c") != "/c/sessions" {
		t.Errorf("ProjectsDir %q, SessionsDir %q", ProjectsDir("/c"), SessionsDir("/c"))
	}
}

// TestHasConfigMarks: sessions/, .claude.json or settings.json mark a
// config dir; projects/ only when asked.
func TestHasConfigMarks(t *testing.T) {
	for _, tt := range []struct {
		make           string
		plain, withPrj bool
	}{
		{"", false, false},
		{"sessions/", true, true},
		{".claude.json", true, true},
		{"settings.json", true, true},
		{"projects/", false, true},
		{"other.json", false, false},
	} {
		dir := t.TempDir()
		if tt.make != "" {
			p := filepath.Join(dir, tt.make)
			var err error
			if strings.HasSuffix(tt.make, "/") {
				err = os.Mkdir(p, 0o755)
			} else {
				err = os.WriteFile(p, []byte("{}"), 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if got := HasConfigMarks(dir, false); got != tt.plain {
			t.Errorf("%q: HasConfigMarks(dir, false) = %v", tt.make, got)
		}
		if got := HasConfigMarks(dir, true); got != tt.withPrj {
			t.Errorf("%q: HasConfigMarks(dir, true) = %v", tt.make, got)
		}
	}
}
