package ccrender

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/commands/ccentries"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
	"github.com/ccpipe/ccpipe/lib/records"
)

const corpus = "../../../testdata/corpus/claude/projects/"

var (
	alpha = corpus + "-home-dev-projects-alpha/c0a1f001-0000-4000-8000-000000000001.jsonl"
	beta  = corpus + "-home-dev-projects-beta/c0a1f002-0000-4000-8000-000000000002.jsonl"
)

func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return golden.Call(Run, stdin, args...)
}

func TestPaths(t *testing.T) {
	code, out, errs := run(t, "", "md", "--no-subagents", alpha, beta)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"# corpus-tools", "# Session c0a1f002", "<code>echo hello-corpus</code> · exit 0", "\n---\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out, "Subagent transcript") {
		t.Error("subagents rendered with --no-subagents")
	}
	for _, args := range [][]string{{"html", alpha, beta}, {"html", "--subagents", alpha, beta}} {
		_, out, _ = run(t, "", args...)
		if strings.Count(out, "<!DOCTYPE html>") != 1 || strings.Count(out, "<article ") != 2 || !strings.Contains(out, "Subagent transcript") {
			t.Errorf("%q: want one page with two articles and the subagents", args)
		}
	}
}

func TestSessionRecords(t *testing.T) {
	abs, _ := filepath.Abs(alpha)
	recs := `{"session_id":"c0a1f001-0000-4000-8000-000000000001","transcript_path":"` + abs + `"}` + "\n" +
		`{"nothing":1}` + "\n"
	code, out, errs := run(t, recs, "md")
	if code != 0 || !strings.Contains(out, "# corpus-tools") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(errs, "<stdin>:2: neither a transcript entry nor a session record") {
		t.Errorf("stderr %q", errs)
	}
}

// TestEntriesNested pipes cc-entries --subagents into cc-render: the
// subagents' entries come last and are laid out inside their Agent calls.
func TestEntriesNested(t *testing.T) {
	var entries, errb bytes.Buffer
	if code := ccentries.Run([]string{"--subagents", beta}, nil, &entries, &errb); code != 0 {
		t.Fatalf("cc-entries: %d %s", code, errb.String())
	}
	code, out, errs := run(t, entries.String(), "md")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	fg := strings.Index(out, "Foreground check")
	nested := strings.Index(out, "<code>echo fg-sub-ok</code>")
	bg := strings.Index(out, "Background check")
	if fg < 0 || nested < fg || bg < nested {
		t.Errorf("the foreground subagent's call is not inside its Agent call (%d %d %d)", fg, nested, bg)
	}
	// The same page as from the transcript with --subagents.
	_, direct, _ := run(t, "", "md", "--subagents", beta)
	if out != direct {
		t.Errorf("entries and transcript render differently")
	}
}

func TestOutDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pages")
	code, out, errs := run(t, "", "html", "--out-dir", dir, alpha, beta)
	if code != 0 || out != "" || errs != "" {
		t.Fatalf("exit %d, out %q, stderr %q", code, out, errs)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(names) != 2 || filepath.Base(names[0]) != "c0a1f001-0000-4000-8000-000000000001.html" {
		t.Errorf("files %q", names)
	}
	page, _ := os.ReadFile(names[1])
	if !strings.HasPrefix(string(page), "<!DOCTYPE html>") || !strings.HasSuffix(string(page), "</html>\n") {
		t.Errorf("page %s is not whole", names[1])
	}
}

func TestOut(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.md")
	if code, _, errs := run(t, "", "md", "-o", p, alpha); code != 0 {
		t.Fatalf("exit %d %s", code, errs)
	}
	b, _ := os.ReadFile(p)
	if !strings.HasPrefix(string(b), "# corpus-tools") {
		t.Errorf("--out wrote %q", b[:min(len(b), 40)])
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(p), ".*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %q", left)
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		err  string
	}{
		{nil, 2, "missing format"},
		{[]string{"pdf", alpha}, 2, `unknown format "pdf"`},
		{[]string{"md", "--follow"}, 2, "needs one transcript"},
		{[]string{"md", "--jq", ".", alpha}, 2, "writes pages, not records"},
		{[]string{"md", "--out", "a", "--out-dir", "b", alpha}, 2, "exclude each other"},
		{[]string{"md", "--follow", alpha, beta}, 2, "follows one session"},
		{[]string{"md", "--follow", alpha}, 2, "give --out FILE"},
		{[]string{"md", "/nonexistent/x.jsonl", alpha}, 1, "/nonexistent/x.jsonl"},
	}
	for _, c := range cases {
		code, out, errs := run(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.err) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, errs, c.code, c.err)
		}
		if c.code == 1 && !strings.Contains(out, "# corpus-tools") {
			t.Errorf("%q: the readable session was not rendered", c.args)
		}
	}
}

// TestFollow follows a transcript under a fake config dir: the page is
// rewritten when a prompt is appended, and the follow ends when the
// session's registry record goes.
func TestFollow(t *testing.T) {
	dir := t.TempDir()
	id := "11111111-2222-4333-8444-555555555555"
	p := filepath.Join(dir, "claude", "projects", "p", id+".jsonl")
	os.MkdirAll(filepath.Dir(p), 0o755)
	line := func(uuid, text string) string {
		return `{"type":"user","uuid":"` + uuid + `","sessionId":"` + id + `","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"` + text + `"}}` + "\n"
	}
	os.WriteFile(p, []byte(line("a", "FIRST-PROMPT")), 0o644)
	sessions := filepath.Join(dir, "claude", "sessions")
	os.MkdirAll(sessions, 0o755)
	pid := strconv.Itoa(os.Getpid())
	reg := filepath.Join(sessions, pid+".json")
	os.WriteFile(reg, []byte(`{"pid":`+pid+`,"sessionId":"`+id+`"}`), 0o644)
	out := filepath.Join(dir, "live.html")

	done := make(chan int)
	var errb bytes.Buffer
	go func() {
		done <- Run([]string{"html", "--follow", "--poll", "10ms", "--out", out, p}, nil, &bytes.Buffer{}, &errb)
	}()
	waitFor := func(want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if b, err := os.ReadFile(out); err == nil && strings.Contains(string(b), want) {
				if !strings.HasSuffix(string(b), "</html>\n") {
					t.Fatalf("a reader saw a half-written page")
				}
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatalf("the page never showed %q", want)
	}
	waitFor("FIRST-PROMPT")
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(line("b", "SECOND-PROMPT"))
	f.Close()
	waitFor("SECOND-PROMPT")
	os.Remove(reg)
	select {
	case code := <-done:
		if code != 0 || errb.String() != "" {
			t.Errorf("exit %d, stderr %q", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the follow did not end with the session")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".live.html*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %q", left)
	}
}

// TestFollowStdoutFile follows with stdout redirected to a file: the page
// replaces that file (by its path) rather than being appended to it.
func TestFollowStdoutFile(t *testing.T) {
	dir := t.TempDir()
	id := "11111111-2222-4333-8444-555555555555"
	p := filepath.Join(dir, "claude", "projects", "p", id+".jsonl")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"type":"user","uuid":"a","sessionId":"`+id+`","message":{"role":"user","content":"ONLY-PROMPT"}}`+"\n"), 0o644)
	// No registry record: the session has ended, so one render and done.
	os.MkdirAll(filepath.Join(dir, "claude", "sessions"), 0o755)
	outPath := filepath.Join(dir, "live.md")
	out, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var errb bytes.Buffer
	if code := Run([]string{"md", "--follow", p}, nil, out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, _ := os.ReadFile(outPath)
	if !strings.Contains(string(b), "ONLY-PROMPT") {
		t.Errorf("the redirected file holds %q", b)
	}
}

// Bad stdin lines are named ten at a time, then counted (cli.Env's shared
// cap); the good records are still rendered.
func TestStdinWarningsCapped(t *testing.T) {
	in := strings.Repeat("garbage\n", 12) + strings.Repeat(`{"kind":"fact"}`+"\n", 3) + `{"transcript_path":"` + alpha + `"}` + "\n"
	code, out, errs := run(t, in, "md")
	if n := strings.Count(errs, "<stdin>:"); n != 11 || !strings.Contains(errs, "<stdin>: 5 more warnings about stdin lines not shown (15 in all)") {
		t.Errorf("%d lines name stdin, stderr:\n%s", n, errs)
	}
	if code != 0 || !strings.Contains(out, "# corpus-tools") {
		t.Errorf("exit %d, the session was not rendered", code)
	}
	// Nothing usable: exit 1, and said.
	code, out, errs = run(t, strings.Repeat("garbage\n", 3)+`{"kind":"fact"}`+"\n", "md")
	if code != 1 || out != "" || !strings.Contains(errs, "cc-render: <stdin>: no transcript entry or session record read") {
		t.Errorf("nothing usable: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestNotATranscript: input that is not a transcript (a binary, a missing
// file, another tool's NDJSON, text) is one error naming the file, exit 1,
// and nothing written: no page on stdout, no --out file.
func TestNotATranscript(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable() // a binary file at hand: this test's own
	if err != nil {
		t.Fatal(err)
	}
	ndjson := filepath.Join(dir, "facts.jsonl")
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(ndjson, []byte(`{"session_id":"s","text":"hi"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(text, []byte(strings.Repeat("just words\n", 50)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, says string }{
		{exe, exe + ": not a transcript: a binary file"},
		{filepath.Join(dir, "nope.jsonl"), "open " + filepath.Join(dir, "nope.jsonl") + ": no such file or directory"},
		{ndjson, ndjson + `: not a transcript: 1 records without a "type"`},
		{text, text + ": not a transcript: no JSON record in its first 50 lines"},
	} {
		for _, format := range []string{"md", "html"} {
			out := filepath.Join(dir, "page."+format)
			for _, args := range [][]string{{format, c.path}, {format, "-o", out, c.path}} {
				code, stdout, errs := run(t, "", args...)
				if code != 1 || stdout != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "cc-render: "+c.says) {
					t.Errorf("%q: exit %d, stdout %d bytes, stderr %q", args, code, len(stdout), errs)
				}
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("%q: %s was written", args, out)
				}
			}
		}
	}
	// Beside a transcript: the transcript's page, and the error once.
	code, stdout, errs := run(t, "", "md", alpha, exe)
	if code != 1 || !strings.Contains(stdout, "# corpus-tools") || strings.Count(errs, exe) != 1 {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	// Through cc-entries --with-source (the lines are entries by their
	// cc_source): named as the file, not as cc-render's temporary copy.
	var entries, errb bytes.Buffer
	if code := ccentries.Run([]string{"--with-source", ndjson}, nil, &entries, &errb); code != 0 {
		t.Fatalf("cc-entries: %d %s", code, errb.String())
	}
	code, stdout, errs = run(t, entries.String(), "md")
	if want := "cc-render: " + ndjson + `: not a transcript: 1 records without a "type"`; code != 1 || stdout != "" || !strings.HasPrefix(errs, want) {
		t.Errorf("entries: exit %d, stdout %q, stderr %q; want %q", code, stdout, errs, want)
	}
}

// TestMalformedLinesCounted: a transcript with many bad lines names ten
// of them, then counts the rest.
func TestMalformedLinesCounted(t *testing.T) {
	src, err := os.ReadFile(alpha)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c0a1f001-0000-4000-8000-000000000001.jsonl")
	if err := os.WriteFile(path, append(src, []byte(strings.Repeat("not json\n", 25))...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errs := run(t, "", "md", path)
	if code != 0 || !strings.Contains(stdout, "# corpus-tools") || strings.Count(errs, "malformed line skipped") != 10 ||
		!strings.Contains(errs, path+": 15 more warnings not shown (25 in all)") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestCutWarningNamesOrigin: the warning about a text cut short names the
// line where the text is, from a transcript as from entries piped in
// (kept in temporary files until the input ends): the transcript and its
// line when cc_source says them, else the stdin line; never a temporary
// file.
func TestCutWarningNamesOrigin(t *testing.T) {
	const sid = "c0a1f002-0000-4000-8000-000000000002"
	dir := t.TempDir()
	golden.CopyTree(t, corpus+"-home-dev-projects-beta", dir)
	main := filepath.Join(dir, sid+".jsonl")
	agent := filepath.Join(dir, sid, "subagents", "agent-a620942e6fc1c75cf.jsonl")
	big := strings.Repeat("x", 200<<10)
	at := map[string]int{} // the line of the long text in each file
	for _, f := range []struct{ path, line string }{
		{main, `{"type":"user","uuid":"big-main","sessionId":"` + sid + `","timestamp":"2026-11-30T11:00:00Z","message":{"role":"user","content":"` + big + `"}}`},
		{agent, `{"type":"user","uuid":"big-agent","isSidechain":true,"agentId":"a620942e6fc1c75cf","sessionId":"` + sid + `","timestamp":"2026-11-30T11:00:00Z","message":{"role":"user","content":"` + big + `"}}`},
	} {
		src, err := os.ReadFile(f.path)
		if err == nil {
			at[f.path] = bytes.Count(src, []byte("\n")) + 1
			err = os.WriteFile(f.path, append(src, f.line+"\n"...), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	cache.Settle()
	cut := ": 1 texts over 128.0 KB cut short on the page"
	inMain := main + ":" + strconv.Itoa(at[main]) + cut
	inAgent := agent + ":" + strconv.Itoa(at[agent]) + cut
	entries := func(args ...string) string {
		var out, errb bytes.Buffer
		if code := ccentries.Run(args, nil, &out, &errb); code != 0 {
			t.Fatalf("cc-entries %q: %d %s", args, code, errb.String())
		}
		return out.String()
	}
	alphaLines := strings.Count(entries(alpha), "\n")
	for _, c := range []struct {
		name, stdin string
		args, want  []string
	}{
		{"file", "", []string{main}, []string{inAgent, inMain}},
		{"session record", `{"transcript_path":"` + main + `"}` + "\n", nil, []string{inAgent, inMain}},
		// After alpha's lines: the stdin line, not the spool file's.
		{"entries", entries(alpha, main), nil, []string{"<stdin>:" + strconv.Itoa(alphaLines+at[main]) + cut}},
		{"entries with source", entries("--subagents", alpha, main), nil, []string{inAgent, inMain}},
	} {
		for _, format := range []string{"md", "html"} {
			code, _, errs := run(t, c.stdin, append([]string{format}, c.args...)...)
			want := "cc-render: " + strings.Join(c.want, "\ncc-render: ") + "\n"
			if code != 0 || errs != want {
				t.Errorf("%s, %s: exit %d, stderr\n%s\nwant\n%s", c.name, format, code, errs, want)
			}
		}
	}
}

// TestSpoolWhere: a spool file's lines are named by their runs of stdin
// lines and cc_source lines, whatever breaks a run.
func TestSpoolWhere(t *testing.T) {
	f := &spoolFile{}
	for _, l := range []struct {
		n int
		c *records.Source
	}{
		{5, nil}, {6, nil}, {7, &records.Source{}}, // one run: no cc_source, or none that names a line
		{10, nil}, // another session's lines came between
		{11, &records.Source{Path: "p", Line: 3}}, {12, &records.Source{Path: "p", Line: 4}},
		{13, &records.Source{Path: "p", Line: 9}}, // cc-entries --types left lines out
		{14, &records.Source{Path: "q", Line: 10}},
		{15, nil},
	} {
		f.note(l.n, l.c)
	}
	want := []string{"<stdin>:5", "<stdin>:6", "<stdin>:7", "<stdin>:10", "p:3", "p:4", "p:9", "q:10", "<stdin>:15"}
	for i, w := range want {
		if got := f.where(i + 1); got != w {
			t.Errorf("line %d: %q, want %q", i+1, got, w)
		}
	}
	if len(f.runs) != 6 {
		t.Errorf("%d runs, want 6: %+v", len(f.runs), f.runs)
	}
	// The file: the transcript all its lines came from, else stdin.
	one := &spoolFile{}
	one.note(3, &records.Source{Path: "p", Line: 1})
	one.note(9, &records.Source{Path: "p", Line: 5})
	if f.where(0) != "<stdin>" || one.where(0) != "p" || (&spoolFile{}).where(0) != "<stdin>" {
		t.Errorf("files named %q, %q", f.where(0), one.where(0))
	}
}
