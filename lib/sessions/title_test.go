package sessions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/profiles"
)

const (
	idD = "dddddddd-0000-4000-8000-000000000004"
	idE = "eeeeeeee-0000-4000-8000-000000000005"
	idF = "ffffffff-0000-4000-8000-000000000006"
)

// titleTree is a config dir of ended sessions with titles: D custom
// "Beta calc work" set at the start, E an AI title only, F "Beta calc
// work" set late in its last run (after older runs, no re-append), and
// A "shared" while B (running) is also "shared".
func titleTree(t *testing.T) ([]profiles.Profile, []Active) {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	cfg := filepath.Join(root, "cfg")
	lastPrompt := `{"type":"last-prompt","lastPrompt":"x"}`
	// Past the size read whole, so that F's tail is read backwards.
	pad := `{"type":"attachment","attachment":{"content":"` + strings.Repeat("p", 40<<10) + `"}}`
	for path, lines := range map[string][]string{
		"projects/-w-d/" + idD + ".jsonl": {`{"type":"custom-title","customTitle":"Gamma desk"}`, lineStart, lineEnd, lastPrompt},
		"projects/-w-e/" + idE + ".jsonl": {lineStart, lineAI, lineEnd, lastPrompt},
		"projects/-w-f/" + idF + ".jsonl": {lineStart, pad, lineEnd, lastPrompt,
			`{"type":"custom-title","customTitle":"Beta calc work"}`, lineStart, lineEnd, lastPrompt},
		"projects/-w-a/" + idA + ".jsonl":                                 {`{"type":"custom-title","customTitle":"shared"}`, lineStart, lineEnd, lastPrompt},
		"projects/-w-b/" + idB + ".jsonl":                                 {`{"type":"custom-title","customTitle":"shared"}`, lineStart, lineEnd, lastPrompt},
		"projects/-w-c/" + idC + ".jsonl":                                 {`{"type":"custom-title","customTitle":"twice"}`, lineStart, lineEnd, lastPrompt},
		"projects/-w-g/" + idC[:8] + "-1111-4000-8000-000000000007.jsonl": {`{"type":"custom-title","customTitle":"twice"}`, lineStart, lineEnd, lastPrompt},
	} {
		p := filepath.Join(cfg, path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	profs := []profiles.Profile{{Name: "p", ConfigDir: cfg, ProjectsDir: filepath.Join(cfg, "projects"), SessionsDir: filepath.Join(cfg, "sessions")}}
	actives := []Active{{Address: "p/bee", Profile: "p", Pid: 11, SessionID: idB, Name: "bee", Liveness: "alive",
		TranscriptPath: filepath.Join(cfg, "projects/-w-b/"+idB+".jsonl")}}
	return profs, actives
}

func TestFindByTitle(t *testing.T) {
	profs, actives := titleTree(t)
	ctx := context.Background()
	tests := []struct {
		query, want string
		running     bool
		cands       int
	}{
		{query: "Gamma desk", want: idD},
		{query: "generated", want: idE},
		{query: "Beta calc work", want: idF}, // set late in the last run
		{query: "shared", want: idB, running: true},
		{query: "twice", cands: 2},
		{query: "Gamma", want: ""}, // titles match whole
	}
	for _, tt := range tests {
		s, err := Find(ctx, tt.query, profs, FindOptions{Active: actives})
		var amb *AmbiguousError
		var nf *NotFoundError
		switch {
		case tt.cands > 0:
			if !errors.As(err, &amb) || len(amb.Candidates) != tt.cands {
				t.Errorf("%q: %v, want %d candidates", tt.query, err, tt.cands)
			}
		case tt.want == "":
			if !errors.As(err, &nf) {
				t.Errorf("%q: %v %v, want not found", tt.query, s.SessionID, err)
			}
		case err != nil || s.SessionID != tt.want || (s.Active != nil) != tt.running:
			t.Errorf("%q: %s active %v, %v; want %s", tt.query, s.SessionID, s.Active != nil, err, tt.want)
		case s.Title != tt.query || s.TranscriptPath == "":
			t.Errorf("%q: record %+v", tt.query, s)
		}
	}
}

// The session record and Title agree on the newest title: a custom title
// set in the last run, after the last re-append, wins over none.
func TestTitleOfTranscript(t *testing.T) {
	profs, _ := titleTree(t)
	for id, want := range map[string]string{idD: "Gamma desk", idE: "generated", idF: "Beta calc work"} {
		p := FindTranscript(id, profs, "")
		got, err := Title(p)
		if err != nil || got != want {
			t.Errorf("Title(%s) = %q, %v; want %q", id, got, err, want)
		}
		list, _ := List(context.Background(), profs, ListOptions{NoActive: true})
		for _, s := range list {
			if s.SessionID == id && s.Title != want {
				t.Errorf("session record %s title %q, want %q", id, s.Title, want)
			}
		}
	}
	if _, err := Title(filepath.Join(t.TempDir(), "none.jsonl")); err == nil {
		t.Error("Title of a missing file: no error")
	}
}

// TestFindByTitleCached: a title lookup through the listing's summary
// cache (cc-sessions --find) answers as one without it, cold, warm, and
// after a transcript was given a new title; the warm lookup reads no
// unchanged transcript.
func TestFindByTitleCached(t *testing.T) {
	profs, actives := titleTree(t)
	ctx := context.Background()
	dir := t.TempDir()
	queries := []string{"Gamma desk", "generated", "Beta calc work", "shared", "twice", "Gamma", "renamed"}
	answer := func(c *cache.Store, q string) string {
		t.Helper()
		s, err := Find(ctx, q, profs, FindOptions{Active: actives, Cache: c})
		var amb *AmbiguousError
		if errors.As(err, &amb) {
			ids := []string{}
			for _, c := range amb.Candidates {
				ids = append(ids, c.SessionID)
			}
			return "ambiguous " + strings.Join(ids, " ")
		}
		return fmt.Sprintf("%s %q %v %v", s.SessionID, s.Title, s.Active != nil, err)
	}
	check := func(stage string) {
		t.Helper()
		for _, pass := range []string{"cold", "warm"} {
			c := cache.Open(dir, SummaryCacheName, SummaryCacheVersion)
			for _, q := range queries {
				if got, want := answer(c, q), answer(nil, q); got != want {
					t.Errorf("%s, %s cache: %q: %s, want %s", stage, pass, q, got, want)
				}
			}
			if err := c.Save(); err != nil {
				t.Fatal(err)
			}
			cache.Settle()
		}
	}
	check("first")
	c := cache.Open(dir, SummaryCacheName, SummaryCacheVersion)
	answer(c, "Gamma desk")
	if st := c.Stats(); st.Fresh == 0 || st.Fresh != st.Entries {
		t.Errorf("warm title lookup: %+v, want every transcript fresh", st)
	}
	// D is renamed: the cached summary of its old size must not answer.
	p := filepath.Join(profs[0].ProjectsDir, "-w-d", idD+".jsonl")
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"type":"custom-title","customTitle":"renamed"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	check("renamed")
	if got := answer(cache.Open(dir, SummaryCacheName, SummaryCacheVersion), "renamed"); !strings.HasPrefix(got, idD+` "renamed"`) {
		t.Errorf("renamed: %s, want %s", got, idD)
	}
}
