package ccextract

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/extract"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// kindCacheForms are the forms of each kind the cache must print exactly
// as --no-cache does: its switches, --since/--until windows (a window
// first, so that the cache a windowed run fills serves the others, and
// last), --jq, the table and NDJSON formats, subagents on and off. Every
// kind of extract.Kinds needs a row (TestKindCacheByteIdentical fails
// without one).
var kindCacheForms = map[string][][]string{
	"shell": {
		{"--since", "2026-11-30T00:00:00Z"}, {}, {"--errors"}, {"--no-subagents"},
		{"--jq", ".command", "-r"}, {"--format", "table"}, {"--errors", "--until", "2026-12-01T21:02:30Z"},
	},
	"tools": {
		{"--until", "2026-12-01T21:02:30Z"}, {}, {"--errors"}, {"--no-subagents", "--format", "ndjson"},
		{"--format", "table"}, {"--since", "2026-12-01T00:00:00Z"},
	},
	"files": {
		{"--since", "2026-12-01T00:00:00Z"}, {}, {"--unique"}, {"--no-subagents"}, {"--format", "table"},
		{"--jq", "select(.op == \"edit\") | .path", "-r"}, {"--until", "2026-11-30T00:00:00Z"},
	},
	"prompts": {
		{"--since", "2026-12-01T00:00:00Z"}, {}, {"--all"}, {"--subagents"}, {"--format", "table"},
		{"--jq", ".text", "-r"}, {"--all", "--until", "2026-12-01T21:02:30Z"},
	},
	"texts": {
		{"--until", "2026-12-01T21:02:30Z"}, {}, {"--thinking"}, {"--subagents"}, {"--format", "table"},
		{"--since", "2026-12-01T00:00:00Z"},
	},
	"failures": {
		{"--since", "2026-12-01T00:00:00Z"}, {}, {"--no-subagents"}, {"--format", "table"},
		{"--jq", ".kind", "-r"}, {"--until", "2026-11-30T00:00:00Z"},
	},
	"subagents": {
		{"--until", "2026-12-01T21:02:30Z"}, {}, {"--no-subagents"}, {"--format", "table"},
		{"--since", "2026-12-01T00:00:00Z"},
	},
	"compactions": {
		{"--since", "2026-12-01T00:00:00Z"}, {}, {"--subagents"}, {"--format", "table"}, {"--until", "2026-11-30T00:00:00Z"},
	},
	"conversation": {
		{"--until", "2026-12-01T21:02:30Z"}, {}, {"--thinking"}, {"--subagents", "--format", "ndjson"},
		{"--format", "table"}, {"--since", "2026-12-01T00:00:00Z"},
	},
	// usage has TestCacheByteIdentical; here in the same stages as the rest.
	"usage": {
		{"--sum", "day", "--since", "2026-12-01T00:00:00Z"}, {}, {"--cost", "--no-subagents"}, {"--sum", "session"},
	},
}

// TestKindCacheByteIdentical: every kind, in every form of
// kindCacheForms, prints the same bytes (stdout, stderr, exit status) with
// the cache as with --no-cache, on testdata's real corpora (the corpus,
// the fork corpus, the pricing corpus, the sessions tree, the transcripts
// with malformed lines): with a cold cache, a warm one, and after a
// transcript grew (by a tail whose lines finish a tool call's join, one of
// them malformed, the last one cut mid-line), a new one appeared, one was
// rewritten in place (same size, its mtime set back), one shrank and one
// was replaced by another file.
func TestKindCacheByteIdentical(t *testing.T) {
	for _, k := range extract.Kinds {
		if len(kindCacheForms[k]) == 0 {
			t.Errorf("kind %s has no cache case in kindCacheForms", k)
		}
	}
	work := t.TempDir()
	root := filepath.Join(work, "corpus")
	golden.CopyTree(t, "../../../testdata/corpus/claude/projects", filepath.Join(root, "a"))
	golden.CopyTree(t, "../../../testdata/corpus-fork/claude/projects", filepath.Join(root, "b"))
	golden.CopyTree(t, "../../../testdata/sessions/tree/home/.claude/projects", filepath.Join(root, "s"))
	golden.CopyTree(t, "../../../testdata/transcripts/claude/projects", filepath.Join(root, "t"))
	loose := filepath.Join(work, "loose")
	golden.CopyTree(t, "../../../testdata/corpus-pricing", filepath.Join(loose, "pricing"))
	golden.CopyTree(t, "../../../testdata/transcripts/malformed", filepath.Join(loose, "malformed"))
	args := []string{root}
	for _, dir := range []string{"pricing", "malformed"} {
		m, _ := filepath.Glob(filepath.Join(loose, dir, "*.jsonl"))
		args = append(args, m...)
	}
	if len(args) < 30 {
		t.Fatalf("%d transcripts given: the corpora moved?", len(args))
	}

	grown := filepath.Join(root, "a/-home-dev-projects-alpha/c0a1f001-0000-4000-8000-000000000001.jsonl")
	newFile := filepath.Join(root, "b/-home-dev-projects-forks/f0a1f003-0000-4000-8000-000000000003.jsonl")
	rewritten := filepath.Join(root, "a/-home-dev-projects-beta/c0a1f002-0000-4000-8000-000000000002.jsonl")
	shrunk := filepath.Join(root, "b/-home-dev-projects-forks/f0a1f001-0000-4000-8000-000000000001.jsonl")
	replaced := filepath.Join(root, "a/-home-dev-projects-gamma/c0a1f005-0000-4000-8000-000000000005.jsonl")
	full := readFile(t, grown)
	held := readFile(t, newFile)
	heldBack := filepath.Join(root, "t/-home-dev-work-alpha/22222222-2222-4333-8444-555555555555.jsonl")
	heldBytes := readFile(t, grown)
	// Cut after the first line holding a tool_use whose result comes
	// later: the join finishes across the cache's offset.
	cut := cutAfterToolUse(t, full)
	writeFile(t, grown, full[:cut])
	if err := os.Remove(newFile); err != nil {
		t.Fatal(err)
	}
	cache.Settle() // the warm runs below expect every stamp settled

	env := map[string]string{"XDG_CACHE_HOME": filepath.Join(work, "cache")}
	sys := cli.System{Getenv: func(k string) string { return env[k] }, Now: func() time.Time { return time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC) }}
	printed := map[string]bool{}
	check := func(stage string) {
		for _, kind := range extract.Kinds {
			for _, form := range kindCacheForms[kind] {
				a := append(append([]string{kind}, form...), args...)
				wantOut, wantErr, wantCode := run(t, sys, append([]string{"--no-cache"}, a...)...)
				for _, pass := range []string{"first", "second"} {
					out, errs, code := run(t, sys, a...)
					if out != wantOut || errs != wantErr || code != wantCode {
						t.Fatalf("%s %s %v (%s cached run): differs from --no-cache (exit %d, want %d)\nstdout:\n%.3000s\nwant:\n%.3000s\nstderr:\n%s\nwant:\n%s",
							stage, kind, form, pass, code, wantCode, out, wantOut, errs, wantErr)
					}
				}
				if wantOut != "" {
					printed[kind] = true
				}
			}
		}
	}
	stats := func(kind string) string {
		_, s, _ := run(t, sys, kind, "--cache-stats", root)
		return s
	}
	check("cold")
	for _, kind := range extract.Kinds {
		if s := stats(kind); !strings.Contains(s, " 0 grown, 0 read whole") {
			t.Fatalf("%s: a warm run read files: %s", kind, s)
		}
	}

	// The tail: the rest of the transcript up to its last line, a
	// malformed line among its lines, and a last line cut mid-write.
	rest := full[cut:]
	nl := bytes.IndexByte(rest, '\n') + 1
	last := bytes.LastIndexByte(rest[:len(rest)-1], '\n') + 1
	appendFile(t, grown, slices.Concat(rest[:nl], []byte("{\"type\":\"user\",\"message\":\n"), rest[nl:last], []byte(`{"type":"assistant","uuid":"x`)))
	writeFile(t, newFile, held)
	// Rewritten in place: one byte of a text changed, size and mtime kept.
	b := readFile(t, rewritten)
	fi, err := os.Stat(rewritten)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte(`"text":"`)) + len(`"text":"`)
	b[i] ^= 0x20 // a letter's case
	writeFile(t, rewritten, b)
	if err := os.Chtimes(rewritten, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	s := readFile(t, shrunk)
	writeFile(t, shrunk, s[:bytes.LastIndexByte(s[:len(s)-1], '\n')+1])
	r := readFile(t, replaced)
	if err := os.Remove(replaced); err != nil {
		t.Fatal(err)
	}
	writeFile(t, replaced, r[bytes.IndexByte(r, '\n')+1:])
	// Each kind's first form finds the changes in its store; the rest
	// find them cached (stamps taken settled: a racy one is read again).
	cache.Settle()
	check("changed")

	// One more line on the grown transcript (after the line cut mid-write:
	// the two are one malformed line) and one new transcript: a warm run
	// reads those two and nothing else: the tail of the one (from its
	// checkpoint), the other whole.
	appendFile(t, grown, rest[last:])
	writeFile(t, heldBack, heldBytes)
	for _, kind := range extract.Kinds {
		if s := stats(kind); !strings.Contains(s, " 1 grown, 1 read whole") {
			t.Fatalf("%s: after one grown and one new transcript: %s", kind, s)
		}
	}
	check("grown again")

	dependencies(t, root, check)
	for _, kind := range extract.Kinds {
		if !printed[kind] {
			t.Errorf("%s printed nothing in any form: the comparison proves nothing", kind)
		}
	}
}

// dependencies changes what the facts depend on besides the
// transcripts under root (a tool result's file beside one, a subagent's
// .meta.json) and checks the output at each step.
func dependencies(t *testing.T, root string, check func(stage string)) {
	// What the facts depend on besides the transcript: a tool result's
	// file appears beside it, and a subagent's .meta.json and transcript
	// appear in its session's dir; the cached facts that named neither
	// are not printed again.
	results := slices.DeleteFunc(globAll(t, root, "tool-results"), func(p string) bool { return !strings.HasSuffix(filepath.Dir(p), "tool-results") })
	if len(results) == 0 {
		t.Fatal("no tool-results file in the corpora: the dependency case proves nothing")
	}
	for _, p := range results {
		b := readFile(t, p)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		defer writeFile(t, p, b)
	}
	check("results gone")
	for _, p := range results {
		writeFile(t, p, []byte("back\n"))
	}
	metas := globAll(t, root, ".meta.json")
	if len(metas) == 0 {
		t.Fatal("no subagent .meta.json in the corpora: the dependency case proves nothing")
	}
	for _, p := range metas {
		if err := os.Rename(p, p+".away"); err != nil {
			t.Fatal(err)
		}
	}
	check("metas gone")
	for _, p := range metas {
		if err := os.Rename(p+".away", p); err != nil {
			t.Fatal(err)
		}
	}
	check("metas back")
}

// globAll lists the files under root whose path holds part.
func globAll(t *testing.T, root, part string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(p, part) {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// cutAfterToolUse is the end of the first line holding a tool_use whose
// tool_result is on a later line.
func cutAfterToolUse(t *testing.T, b []byte) int {
	t.Helper()
	off := 0
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		off += len(line)
		if bytes.Contains(line, []byte(`"type":"tool_use"`)) && !bytes.Contains(line, []byte(`"tool_result"`)) && off < len(b) {
			return off
		}
	}
	t.Fatal("no tool_use line")
	return 0
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestKindCacheSessionRecords: session records on stdin (cc-sessions |
// cc-extract KIND) name transcripts, so the cache serves them: the warm
// run looks every file up unchanged and prints what --no-cache prints.
func TestKindCacheSessionRecords(t *testing.T) {
	work := t.TempDir()
	root := filepath.Join(work, "projects")
	golden.CopyTree(t, "../../../testdata/corpus/claude/projects", root)
	paths, _ := filepath.Glob(filepath.Join(root, "*", "*.jsonl"))
	if len(paths) < 5 {
		t.Fatalf("%d transcripts: the corpus moved?", len(paths))
	}
	var in strings.Builder
	for _, p := range paths {
		in.WriteString(`{"session_id":"` + strings.TrimSuffix(filepath.Base(p), ".jsonl") + `","transcript_path":"` + p + "\"}\n")
	}
	env := map[string]string{"XDG_CACHE_HOME": filepath.Join(work, "cache")}
	sys := cli.System{Getenv: func(k string) string { return env[k] }, Now: func() time.Time { return time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC) }}
	pipe := func(args ...string) (string, string) {
		var out, errb bytes.Buffer
		RunWith(sys, args, strings.NewReader(in.String()), &out, &errb)
		return out.String(), errb.String()
	}
	for _, kind := range extract.Kinds {
		want, _ := pipe(kind, "--no-cache")
		if want == "" {
			continue // nothing to compare (compactions of the main transcripts)
		}
		for _, pass := range []string{"cold", "warm"} {
			out, errs := pipe(kind, "--cache-stats")
			if out != want {
				t.Fatalf("%s (%s): session records on stdin print otherwise than --no-cache:\n%s\nwant:\n%s", kind, pass, out, want)
			}
			if pass == "warm" && !strings.Contains(errs, " 0 grown, 0 read whole") {
				t.Fatalf("%s: a warm run from session records read files: %s", kind, errs)
			}
		}
	}
}
