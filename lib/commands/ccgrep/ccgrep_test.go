package ccgrep

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

const (
	idOld = "11111111-1111-4111-8111-111111111111"
	idNew = "22222222-2222-4222-8222-222222222222"
)

// home builds a config dir with two sessions: the older one says "flaky"
// in its transcript and "Straße RACE" in a subagent; the newer one holds
// "SEGFAULT flaky" in a tool result only.
func home(t *testing.T) (string, string) {
	t.Helper()
	h := t.TempDir()
	proj := filepath.Join(h, ".claude", "projects", "-home-dev-app")
	write := func(rel, content string) {
		p := filepath.Join(proj, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(idOld+".jsonl", `{"type":"user","cwd":"/home/dev/app","sessionId":"`+idOld+`","timestamp":"2026-01-02T10:00:00.000Z","message":{"role":"user","content":"why is the login test flaky?"}}`+"\n")
	write(idOld+"/subagents/agent-a1.jsonl", `{"type":"user","isSidechain":true,"message":{"content":"Straße RACE"}}`+"\n")
	write(idNew+".jsonl", `{"type":"user","cwd":"/home/dev/app","sessionId":"`+idNew+`","timestamp":"2026-01-03T10:00:00.000Z","message":{"role":"user","content":"build it"}}`+"\n")
	write(idNew+"/tool-results/x1.txt", "SEGFAULT flaky\n")
	return h, proj
}

func run(t *testing.T, h, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return golden.Call(func(a []string, in io.Reader, out, errw io.Writer) int {
		return RunWith(cli.System{Home: h}, a, in, out, errw)
	}, stdin, args...)
}

func TestRun(t *testing.T) {
	h, proj := home(t)
	oldPath := filepath.Join(proj, idOld+".jsonl")
	newPath := filepath.Join(proj, idNew+".jsonl")
	rec := func(path string) string {
		return `{"transcript_path":"` + path + `","cwd":"/home/dev/app","profiles":["default"]}`
	}
	tests := []struct {
		name, stdin string
		args        []string
		code        int
		out, err    string
	}{
		{"every session, newest first", "", []string{"flaky", "-q", ".session_id", "-r"}, 0, idNew + "\n" + idOld + "\n", ""},
		{"all terms", "", []string{"flaky", "race", "-q", ".session_id", "-r"}, 0, idOld + "\n", ""},
		{"unicode folding", "", []string{"STRAẞE", "-q", ".session_id", "-r"}, 0, idOld + "\n", ""},
		{"ascii term, full folding too", "", []string{"STRASSE", "-q", ".session_id", "-r"}, 0, idOld + "\n", ""},
		{"ascii term, full folding in --raw", "", []string{"--raw", "STRASSE", "-q", ".session_id", "-r"}, 0, idOld + "\n", ""},
		{"any", "", []string{"--any", "segfault", "race", "-q", ".session_id", "-r"}, 0, idNew + "\n" + idOld + "\n", ""},
		{"no match", "", []string{"nowhere"}, 1, "", ""},
		{"cwd elsewhere", "", []string{"flaky", "--cwd-within", "/srv"}, 1, "", ""},
		{"unknown profile", "", []string{"flaky", "--profile", "work"}, 2, "", "cc-grep: no profile named \"work\" (known: default)\nusage: cc-grep [--any] [--raw | --matches [-C N]] [--workers N] [--profile NAME] [--cwd-within DIR] TERM...\nRun 'cc-grep -h' for help.\n"},
		{"stdin keeps input order and bytes", rec(oldPath) + "\n" + rec(newPath) + "\n", []string{"flaky"}, 0, rec(oldPath) + "\n" + rec(newPath) + "\n", ""},
		{"stdin each transcript once", rec(oldPath) + "\n" + rec(oldPath) + "\n", []string{"flaky"}, 0, rec(oldPath) + "\n", ""},
		{"stdin profile filter", rec(oldPath) + "\n", []string{"flaky", "--profile", "work"}, 1, "", ""},
		{"stdin matches", rec(newPath) + "\n", []string{"--matches", "-C", "3", "segfault", "FLAKY", "-q", "[.session_id, .where, .term, .snippet, .match_start, .match_end] | @json", "-r"}, 0,
			`["` + idNew + `","tool_result","segfault","SEGFAULT fl",0,8]` + "\n" + `["` + idNew + `","tool_result","FLAKY","LT flaky",3,8]` + "\n", ""},
		{"raw and matches", "", []string{"--raw", "--matches", "x"}, 2, "", "cc-grep: --matches shows hits in content: it does not go with --raw\nusage: cc-grep [--any] [--raw | --matches [-C N]] [--workers N] [--profile NAME] [--cwd-within DIR] TERM...\nRun 'cc-grep -h' for help.\n"},
		// The session id is in the bytes (cwd, sessionId), said nowhere.
		{"an id is not content", "", []string{"11111111"}, 1, "", ""},
		{"an id is in the bytes", "", []string{"--raw", "11111111", "-q", ".session_id", "-r"}, 0, idOld + "\n", ""},
		{"stdin missing transcript", `{"transcript_path":"/nonexistent/x.jsonl"}` + "\n", []string{"x"}, 1, "",
			"cc-grep: open /nonexistent/x.jsonl: no such file or directory\n"},
		{"stdin without transcript_path", `{"cwd":"/x"}` + "\nnot json\n", []string{"x"}, 1, "",
			"cc-grep: <stdin>:2: malformed JSON, line skipped\ncc-grep: 1 input record(s) without a transcript_path skipped\n"},
		{"no term", "", nil, 2, "", "cc-grep: no TERM given\nusage: cc-grep [--any] [--raw | --matches [-C N]] [--workers N] [--profile NAME] [--cwd-within DIR] TERM...\nRun 'cc-grep -h' for help.\n"},
		{"empty term", "", []string{""}, 2, "", "cc-grep: empty search term\nusage: cc-grep [--any] [--raw | --matches [-C N]] [--workers N] [--profile NAME] [--cwd-within DIR] TERM...\nRun 'cc-grep -h' for help.\n"},
		{"bad workers", "", []string{"x", "--workers", "0"}, 2, "", "cc-grep: --workers must be 1 or more, not 0\nusage: cc-grep [--any] [--raw | --matches [-C N]] [--workers N] [--profile NAME] [--cwd-within DIR] TERM...\nRun 'cc-grep -h' for help.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, h, tt.stdin, tt.args...)
			if code != tt.code || out != tt.out || errs != tt.err {
				t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit %d, stdout:\n%s\nstderr:\n%s", code, out, errs, tt.code, tt.out, tt.err)
			}
		})
	}
}

// TestListingAsCCSessions: a session record from the listing is spelled as
// cc-sessions prints it (<, > and & literal, as the ndjson writer does), in
// the record and in --matches, so cc-grep and cc-sessions | cc-grep agree.
func TestListingAsCCSessions(t *testing.T) {
	h := t.TempDir()
	proj := filepath.Join(h, ".claude", "projects", "-home-dev-a-b")
	tr := filepath.Join(proj, idOld+".jsonl")
	tool := filepath.Join(proj, idOld, "tool-results", "a&b<c>.txt")
	if err := os.MkdirAll(filepath.Dir(tool), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tr, []byte(`{"type":"user","cwd":"/home/dev/a&b","sessionId":"`+idOld+`","timestamp":"2026-01-02T10:00:00.000Z","message":{"role":"user","content":"fix <div> & go"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tool, []byte("flaky"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, h, "", "flaky")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	_, hits, _ := run(t, h, "", "--matches", "flaky")
	out += hits
	for _, want := range []string{`"cwd":"/home/dev/a&b"`, `"first_prompt":"fix <div> & go"`, `"path":"` + tool + `"`} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %s:\n%s", want, out)
		}
	}
}

// TestTermChecks: a term with a line break can never match raw transcript
// bytes (JSON escapes it): a usage error, like a whitespace-only one.
func TestTermChecks(t *testing.T) {
	for _, term := range []string{"a\nb", "x\r", "\t", "  "} {
		var out, errb strings.Builder
		code := RunWith(cli.System{}, []string{term}, strings.NewReader(""), &out, &errb)
		if code != 2 || !strings.HasPrefix(errb.String(), "cc-grep: TERM ") {
			t.Errorf("term %q: exit %d, stderr %q", term, code, errb.String())
		}
	}
}

// TestSortRecentMtime: --sort recent orders input records that carry no
// time by their transcripts' modification time, newest first; without
// it the input order stays.
func TestSortRecentMtime(t *testing.T) {
	h, proj := home(t)
	older, newer := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(proj, idNew+".jsonl"), older, older); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(proj, idOld+".jsonl"), newer, newer); err != nil {
		t.Fatal(err)
	}
	in := `{"transcript_path":"` + filepath.Join(proj, idNew+".jsonl") + `"}` + "\n" +
		`{"transcript_path":"` + filepath.Join(proj, idOld+".jsonl") + `"}` + "\n"
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"flaky", "--sort", "recent", "-q", ".transcript_path", "-r"}, idOld + ".jsonl\n" + idNew + ".jsonl\n"},
		{[]string{"flaky", "-q", ".transcript_path", "-r"}, idNew + ".jsonl\n" + idOld + ".jsonl\n"},
		{[]string{"flaky", "--sort", "recent", "--matches", "-q", ".session_id", "-r"}, idOld + "\n" + idNew + "\n"},
	} {
		code, out, errs := run(t, h, in, tt.args...)
		if got := strings.ReplaceAll(out, proj+"/", ""); code != 0 || got != tt.want {
			t.Errorf("%q: exit %d, %q (stderr %q), want %q", tt.args, code, got, errs, tt.want)
		}
	}
	if code, _, errs := run(t, h, in, "flaky", "--sort", "oldest"); code != 2 || !strings.Contains(errs, "recent") {
		t.Errorf("--sort oldest: exit %d, stderr %q; want a usage error naming recent", code, errs)
	}
}
