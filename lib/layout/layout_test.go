package layout

import (
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
