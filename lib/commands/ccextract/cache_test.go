package ccextract

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/cli"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// TestMain keeps the tests' usage caches (Run reads the process's
// environment) out of the user's cache dir.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ccextract-cache")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func run(t *testing.T, sys cli.System, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := RunWith(sys, args, nil, &out, &errb)
	return out.String(), errb.String(), code
}

// TestCacheByteIdentical: on the corpus and the fork corpus, every usage
// form prints the same bytes (stdout and stderr) with --no-cache, with a
// cold cache, a warm one, and after a transcript grew by half its lines
// and a new one appeared.
func TestCacheByteIdentical(t *testing.T) {
	work := t.TempDir()
	root := filepath.Join(work, "corpus")
	golden.CopyTree(t, "../../../testdata/corpus/claude/projects", filepath.Join(root, "a"))
	golden.CopyTree(t, "../../../testdata/corpus-fork/claude/projects", filepath.Join(root, "b"))
	// One transcript starts at half its bytes (cut mid-line), one is
	// held back: they grow and appear between the runs.
	grown := filepath.Join(root, "a/-home-dev-projects-gamma/c0a1f004-0000-4000-8000-000000000004.jsonl")
	newFile := filepath.Join(root, "b/-home-dev-projects-forks/f0a1f003-0000-4000-8000-000000000003.jsonl")
	full, err := os.ReadFile(grown)
	if err != nil {
		t.Fatal(err)
	}
	held, err := os.ReadFile(newFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(grown, full[:len(full)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(newFile); err != nil {
		t.Fatal(err)
	}
	// One transcript archived: cached whole, for that exact file.
	gzipFile(t, filepath.Join(root, "a/-home-dev-projects-gamma/c0a1f005-0000-4000-8000-000000000005.jsonl"))
	env := map[string]string{"XDG_CACHE_HOME": filepath.Join(work, "cache")}
	sys := cli.System{Getenv: func(k string) string { return env[k] }, Now: func() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) }}
	off := sys
	off.Getenv = func(k string) string {
		if k == "CCPIPE_CACHE" {
			return "off"
		}
		return env[k]
	}
	forms := [][]string{
		// A window first and last: the cache, filled by a run with one
		// window, serves runs with another or none (a session listed
		// with no billable message depends on the window).
		{"usage", "--sum", "session", "--until", "2026-11-30T23:00:00Z"},
		{"usage"}, {"usage", "--cost"}, {"usage", "--subagents", "--cost"},
		{"usage", "--sum", "day"}, {"usage", "--sum", "session", "--cost"}, {"usage", "--sum", "model", "--subagents"},
		{"usage", "--sum", "project", "--cost", "--subagents"}, {"usage", "--sum", "block", "--cost"},
		{"usage", "--sum", "session", "--subagents"},
		{"usage", "--sum", "session", "--since", "2026-12-01T21:02:30Z"},
	}
	check := func(stage string) {
		for _, form := range forms {
			args := append(append([]string(nil), form...), root)
			wantOut, wantErr, wantCode := run(t, sys, append([]string{"--no-cache"}, args...)...)
			offOut, offErr, offCode := run(t, off, args...)
			if offOut != wantOut || offErr != wantErr || offCode != wantCode {
				t.Fatalf("%s %v: CCPIPE_CACHE=off differs from --no-cache", stage, form)
			}
			for _, pass := range []string{"first", "second"} {
				out, errs, code := run(t, sys, args...)
				if out != wantOut || errs != wantErr || code != wantCode {
					t.Fatalf("%s %v (%s cached run): differs from --no-cache\nstdout:\n%s\nwant:\n%s\nstderr:\n%s\nwant:\n%s", stage, form, pass, out, wantOut, errs, wantErr)
				}
			}
			if wantOut == "" {
				t.Fatalf("%s %v: no output", stage, form)
			}
		}
	}
	check("cold")
	_, stats, _ := run(t, sys, "usage", "--cache-stats", root)
	if !strings.Contains(stats, " 0 read whole") || !strings.Contains(stats, "cache: ") {
		t.Fatalf("warm run read files whole: %s", stats)
	}
	if err := os.WriteFile(grown, full, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(newFile, held, 0o644); err != nil {
		t.Fatal(err)
	}
	_, stats, _ = run(t, sys, "usage", "--cache-stats", root)
	if !strings.Contains(stats, " 1 grown, 1 read whole") {
		t.Fatalf("after one grown and one new transcript: %s", stats)
	}
	// A new subagent transcript in a listed session: the kept subagent
	// list is not used (the dir changed).
	sub := filepath.Join(root, "a/-home-dev-projects-beta/c0a1f002-0000-4000-8000-000000000002/subagents")
	b, err := os.ReadFile(filepath.Join(sub, "agent-a7320cfe3f347049a.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte("a7320cfe3f347049a"), []byte("b0000000000000001"))
	b = bytes.ReplaceAll(b, []byte("_fake_"), []byte("_fake2_")) // its own messages
	if err := os.WriteFile(filepath.Join(sub, "agent-b0000000000000001.jsonl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	check("grown")
}

// gzipFile replaces a transcript with its .gz archive.
func gzipFile(t *testing.T, path string) {
	t.Helper()
	plain, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".gz", gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	cache.Settle() // a file written just now has a racy stamp, never Fresh
}
