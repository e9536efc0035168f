package ccentries

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

const (
	td      = "../../../testdata/transcripts"
	session = td + "/claude/projects/-home-dev-work-alpha/11111111-2222-4333-8444-555555555555.jsonl"
)

func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	o := &options{now: func() time.Time { return time.Date(2026, 5, 1, 10, 1, 0, 0, time.UTC) },
		stopFor: func(string, string) func() bool { return func() bool { return true } }}
	code, out, errs := golden.Call(o.command().Main, stdin, args...)
	return out, errs, code
}

func lines(t *testing.T, path string, nums ...int) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.SplitAfter(string(b), "\n")
	var s strings.Builder
	for _, n := range nums {
		s.WriteString(all[n-1])
	}
	return s.String()
}

func TestRun(t *testing.T) {
	whole, _ := os.ReadFile(session)
	abs, _ := filepath.Abs(session)
	rec := `{"session_id":"11111111-2222-4333-8444-555555555555","transcript_path":"` + abs + `"}` + "\n"
	src := func(path string, line int, agent string) string {
		a := "null"
		if agent != "" {
			a = `"` + agent + `","tool_use_id":"toolu_agent1"`
		}
		return `{"cc_source":{"path":"` + path + `","line":` + itoa(line) + `,"session_id":"11111111-2222-4333-8444-555555555555","agent_id":` + a + `},`
	}
	tests := []struct {
		name, stdin string
		args        []string
		out, err    string
		code        int
	}{
		{"passthrough byte for byte", "", []string{session}, string(whole), "", 0},
		{"session records on stdin", rec + rec, nil, string(whole), "", 0},
		{"raw lines on stdin", string(whole), []string{"-", "--types", "system"}, lines(t, session, 12, 18), "", 0},
		{"types", "", []string{session, "--types", "user", "--types", "system"}, lines(t, session, 3, 8, 10, 12, 14, 15, 18, 19), "", 0},
		{"with source", "", []string{"--with-source", "--types=last-prompt", session},
			src(session, 13, "") + lines(t, session, 13)[1:], "", 0},
		{"stdin with source takes each record's session", `{"type":"x","sessionId":"s9"}` + "\n" + `{}` + "\n", []string{"-", "--with-source"},
			`{"cc_source":{"path":null,"line":1,"session_id":"s9","agent_id":null},"type":"x","sessionId":"s9"}` + "\n" +
				`{"cc_source":{"path":null,"line":2,"session_id":null,"agent_id":null}}` + "\n", "", 0},
		{"subagents after the main transcript", "", []string{session, "--subagents", "--tail", "1"},
			src(session, 21, "") + lines(t, session, 21)[1:] +
				src(td+"/claude/projects/-home-dev-work-alpha/11111111-2222-4333-8444-555555555555/subagents/agent-a0123456789abcdef.jsonl", 4, "a0123456789abcdef") +
				lines(t, td+"/claude/projects/-home-dev-work-alpha/11111111-2222-4333-8444-555555555555/subagents/agent-a0123456789abcdef.jsonl", 4)[1:], "", 0},
		{"branch", "", []string{session, "--branch", "--types", "user", "-q", ".uuid", "-r"}, "u1\nu2\nu3\nu6\nu7\n", "", 0},
		{"since as a duration", "", []string{session, "--since", "10m", "--until", "2026-05-01T10:00:02Z", "-q", ".uuid", "-r"}, "null\nnull\nu1\na1\n", "", 0},
		{"since and until", "", []string{session, "--since", "2026-05-01T10:00:50Z", "--until", "2026-05-01T10:00:55Z", "-q", ".uuid", "-r"}, "u6\nas6\nnull\n", "", 0},
		{"jq", "", []string{session, "--types", "assistant", "--tail", "1", "--jq", ".message.content[0].text", "-r"}, "Ready.\n", "", 0},
		{"malformed lines are named", "", []string{td + "/malformed/garbage.jsonl", "-q", ".uuid", "-r"}, "g1\ng3\ng4\n",
			"cc-entries: " + td + "/malformed/garbage.jsonl:3: malformed line skipped: not a JSON object\n" +
				"cc-entries: " + td + "/malformed/garbage.jsonl:4: malformed line skipped: not a JSON object\n" +
				"cc-entries: " + td + "/malformed/garbage.jsonl:5: malformed line skipped: invalid JSON: expected a key at byte 27\n", 0},
		{"truncated last line", "", []string{td + "/malformed/truncated.jsonl", "-q", ".uuid", "-r"}, "t1\n",
			"cc-entries: " + td + "/malformed/truncated.jsonl:2: incomplete last line (file still being written?)\n", 0},
		{"missing file: the rest still printed, exit 1", "", []string{"/nonexistent/x.jsonl", session, "--tail", "1"}, lines(t, session, 21),
			"cc-entries: /nonexistent/x.jsonl: open /nonexistent/x.jsonl: no such file or directory\n", 1},
		{"record without transcript_path", `{"name":"x"}` + "\n", nil, "",
			"cc-entries: <stdin>:1: record has no transcript_path, skipped (for raw transcript lines on stdin, give \"-\")\n", 1},
		// No input means every session (TestEverySessionWithoutInput); with
		// no home and no CLAUDE_CONFIG_DIR there is nowhere to look.
		{"no input, no home", "", nil, "", "cc-entries: no home directory ($HOME is unset and the passwd entry names none): set HOME or CLAUDE_CONFIG_DIR\n", 1},
		{"empty pipe", "\n", nil, "", "", 0},
		{"bad since", "", []string{session, "--since", "last tuesday"}, "", "cc-entries: --since \"last tuesday\": not a time (want RFC 3339, YYYY-MM-DD, YYYYMMDD, a duration ago (90m, 12h, 7d, 2w), today or yesterday)\nusage: cc-entries [--types T,...] [--follow] [--branch] [--subagents] [--archive DIR [--print-settings]] [TRANSCRIPT... | -]\nRun 'cc-entries -h' for help.\n", 2},
		{"since today", "", []string{session, "--since", "today", "--types", "user", "-q", ".uuid", "-r"}, "u1\nu2\nu3\nu5\nu6\nu7\n", "", 0},
		{"until yesterday keeps none of today", "", []string{session, "--until", "yesterday", "--types", "user", "-q", ".uuid", "-r"}, "", "", 0},
		{"YYYYMMDD until is the whole day", "", []string{session, "--since", "20260501", "--until", "20260501", "--types", "user", "-q", ".uuid", "-r"}, "u1\nu2\nu3\nu5\nu6\nu7\n", "", 0},
		{"days ago", "", []string{session, "--since", "1d", "--until", "2026-05-01T10:00:02Z", "-q", ".uuid", "-r"}, "null\nnull\nu1\na1\n", "", 0},
		{"branch of stdin", "x", []string{"-", "--branch"}, "", "", 2},
		{"archive with a selection", "", []string{session, "--archive", "/tmp/x", "--types", "user"}, "", "", 2},
		{"two stdins", "", []string{"-", "-"}, "", "", 2},
		{"line over --max-line named once", "", []string{td + "/malformed/truncated.jsonl", "--max-line", "10", "-q", ".uuid", "-r"}, "",
			"cc-entries: " + td + "/malformed/truncated.jsonl:1: line too long (over 10 bytes), skipped\n" +
				"cc-entries: " + td + "/malformed/truncated.jsonl:2: line too long (over 10 bytes), skipped\n", 0},
		{"negative tail", "", []string{session, "--tail", "-3"}, "", "cc-entries: --tail must be 0 or more\nusage: cc-entries [--types T,...] [--follow] [--branch] [--subagents] [--archive DIR [--print-settings]] [TRANSCRIPT... | -]\nRun 'cc-entries -h' for help.\n", 2},
		{"explicit tail -1", "", []string{session, "-n", "-1"}, "", "", 2},
		{"negative max-line", "", []string{session, "--max-line", "-5"}, "", "cc-entries: --max-line must be positive\nusage: cc-entries [--types T,...] [--follow] [--branch] [--subagents] [--archive DIR [--print-settings]] [TRANSCRIPT... | -]\nRun 'cc-entries -h' for help.\n", 2},
		{"zero max-line", "", []string{session, "--max-line", "0"}, "", "", 2},
		{"until before since", "", []string{session, "--since", "2026-05-02", "--until", "2026-05-01"}, "", "", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := run(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, errs)
			}
			if out != tt.out {
				t.Errorf("stdout\n%s\nwant\n%s", out, tt.out)
			}
			if tt.code == 2 {
				if !strings.HasPrefix(errs, "cc-entries: ") || !strings.HasSuffix(errs, "Run 'cc-entries -h' for help.\n") {
					t.Errorf("usage stderr %q", errs)
				}
				if tt.err != "" && errs != tt.err {
					t.Errorf("stderr %q, want %q", errs, tt.err)
				}
			} else if errs != tt.err {
				t.Errorf("stderr %q, want %q", errs, tt.err)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestDiagnosticsRecord(t *testing.T) {
	out, errs, code := run(t, "", td+"/malformed/wrongtypes.jsonl", td+"/malformed/garbage.jsonl", "--diagnostics", "--types", "user")
	if code != 0 || strings.Count(out, "\n") != 5 {
		t.Fatalf("exit %d out %q", code, out)
	}
	if strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, `{"files":[{"path":"`) {
		t.Fatalf("stderr is not one record: %q", errs)
	}
	// Lines 3 and 4 of garbage.jsonl are not JSON objects: malformed,
	// although --types looks only for "user" (issue 13 item 8).
	for _, want := range []string{`"malformed_lines":[3,4,5]`, `"prefiltered":4`, `"aligned":false`, `"message.content":1`, `"decoded":true`,
		`"totals":{"lines":14,"records":5`} {
		if !strings.Contains(errs, want) {
			t.Errorf("diagnostics lack %s: %s", want, errs)
		}
	}
}

// TestArchiveCommand archives a read-only tree, then reads the copy back.
func TestArchiveCommand(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "claude")
	os.MkdirAll(filepath.Join(cfg, "projects", "p"), 0o755)
	src := filepath.Join(cfg, "projects", "p", "11111111-2222-4333-8444-555555555555.jsonl")
	b, _ := os.ReadFile(session)
	os.WriteFile(src, b, 0o444)
	os.Chmod(filepath.Dir(src), 0o555)
	t.Cleanup(func() { os.Chmod(filepath.Dir(src), 0o755) })
	out := filepath.Join(t.TempDir(), "arch")
	stdout, errs, code := run(t, "", "--archive", out, src)
	if code != 0 || !strings.Contains(stdout, `"status":"written"`) || errs != "" {
		t.Fatalf("exit %d out %q err %q", code, stdout, errs)
	}
	back, _, code := run(t, "", filepath.Join(out, "p", "11111111-2222-4333-8444-555555555555.jsonl.zst"))
	if code != 0 || back != string(b) {
		t.Errorf("archived copy reads %q", back)
	}
	if after, _ := os.ReadFile(src); !bytes.Equal(after, b) {
		t.Error("source changed")
	}
	stdout, _, _ = run(t, "", "--archive", out, src)
	if !strings.Contains(stdout, `"status":"up_to_date"`) {
		t.Errorf("second run %q", stdout)
	}
	// Into the config dir: refused once for the run, not once per session.
	inside := filepath.Join(cfg, "backup")
	stdout, errs, code = run(t, "", "--archive", inside, src, src)
	if want := "cc-entries: --archive: refusing to archive into a config dir: " + inside + " is inside the config dir " + cfg + "\n"; code != 1 || stdout != "" || errs != want {
		t.Errorf("archive into the config dir: exit %d out %q err %q, want err %q", code, stdout, errs, want)
	}
}

// TestFollowCommand follows a transcript under a fake config dir whose
// registry record disappears.
func TestFollowCommand(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "claude", "projects", "p", "11111111-2222-4333-8444-555555555555.jsonl")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"type":"user","uuid":"a"}`+"\n"+`{"type":"user","uuid":"b"}`+"\n"), 0o644)
	sessions := filepath.Join(dir, "claude", "sessions")
	os.MkdirAll(sessions, 0o755)
	reg := filepath.Join(sessions, itoa(os.Getpid())+".json")
	os.WriteFile(reg, []byte(`{"pid":`+itoa(os.Getpid())+`,"sessionId":"11111111-2222-4333-8444-555555555555"}`), 0o644)
	stop := registryStop("11111111-2222-4333-8444-555555555555", p)
	if stop == nil || stop() {
		t.Fatal("registry stop: session should be running")
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(`{"type":"user","uuid":"c"}` + "\n")
		f.Close()
		time.Sleep(100 * time.Millisecond)
		os.Remove(reg)
	}()
	o := &options{now: time.Now, stopFor: registryStop}
	var out, errb bytes.Buffer
	code := o.command().Main([]string{"--follow", "--tail", "1", "--poll", "10ms", "-q", ".uuid", "-r", p}, nil, &out, &errb)
	if code != 0 || out.String() != "b\nc\n" || errb.String() != "" {
		t.Errorf("exit %d out %q err %q", code, out.String(), errb.String())
	}
}
