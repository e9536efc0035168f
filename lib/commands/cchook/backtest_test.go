package cchook

import (
	"slices"
	"strings"
	"testing"
)

// backtest tells stdin lines apart with records.Classify: cc-entries
// lines (with cc_source or raw), session records and hook payloads (their
// transcript_path); a fact, a profile record, a line of the other kind
// than the first, and a non-object are skipped with a warning each.
func TestBacktestStdinKinds(t *testing.T) {
	tr := corpusProjects + "/-home-dev-projects-gamma/c0a1f006-0000-4000-8000-000000000006.jsonl"
	raw := readFile(t, tr)
	first, _, _ := strings.Cut(raw, "\n")
	withSource := `{"cc_source":{"path":"` + tr + `","line":1,"session_id":"c0a1f006-0000-4000-8000-000000000006","agent_id":null},` + first[1:] + "\n"
	session := `{"transcript_path":"` + tr + `"}` + "\n"
	hook := `{"hook_event_name":"Stop","session_id":"s","transcript_path":"` + tr + `"}` + "\n"
	// A feed of entries answers in stream order, a list of transcripts
	// in backtest.Run's order: the same records, told apart by stdin.
	_, fromEntries, _ := run(t, raw, "backtest", hooksDir+"/history.yaml")
	_, fromPaths, _ := run(t, "", "backtest", hooksDir+"/history.yaml", tr)
	if fromEntries == "" || len(fromEntries) != len(fromPaths) {
		t.Fatal("the corpus session answers no rule: the test would prove nothing")
	}
	for _, tt := range []struct {
		name, stdin, stderr string
		paths               bool
	}{
		{"entries and others", raw + `{"uuid":"x","kind":"shell"}` + "\n" + session + "[1]\n",
			"<stdin>:31: a fact, neither a transcript entry nor a record with a transcript_path, skipped\n" +
				"<stdin>:32: a session record in input of transcript entries (as its first record says), skipped\n" +
				"<stdin>:33: not a JSON object, skipped\n", false},
		{"cc_source first", withSource + raw, "", false},
		{"hook payload", hook + `{"config_dir":"/x"}` + "\n" + first + "\n",
			"<stdin>:2: a profile record, neither a transcript entry nor a record with a transcript_path, skipped\n" +
				"<stdin>:3: a transcript entry in input of session records (as its first record says), skipped\n", true},
		{"session records, each once", session + session, "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, tt.stdin, "backtest", hooksDir+"/history.yaml")
			want := fromEntries
			if tt.paths {
				want = fromPaths
			}
			wantErr := ""
			for _, l := range strings.SplitAfter(tt.stderr, "\n") {
				if l != "" {
					wantErr += "cc-hook: " + l
				}
			}
			if code != 0 || out != want || errs != wantErr {
				t.Errorf("exit %d\nstdout %s\nstderr %q\nwant stdout %s\nstderr %q", code, out, errs, want, wantErr)
			}
		})
	}
}

// A line that names no session (Claude Code writes its
// file-history-snapshot records without a sessionId, between a
// transcript's turns) goes on with the transcript before it
// (transcript.Edges): entries with one between a call and its result
// give the payloads of entries without it, not a second SessionStart.
func TestBacktestStdinSessionlessLine(t *testing.T) {
	raw := readFile(t, corpusProjects+"/-home-dev-projects-gamma/c0a1f006-0000-4000-8000-000000000006.jsonl")
	lines := strings.SplitAfter(raw, "\n")
	call := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, `"type":"tool_use"`) })
	if call < 0 {
		t.Fatal("no tool call in the corpus session")
	}
	snapshot := `{"type":"file-history-snapshot","messageId":"m","snapshot":{"messageId":"m","trackedFileBackups":{},"timestamp":"2026-11-30T10:47:05.000Z"},"isSnapshotUpdate":false}` + "\n"
	with := strings.Join(slices.Insert(slices.Clone(lines), call+1, snapshot), "")
	_, want, _ := run(t, raw, "backtest", "--all", hooksDir+"/history.yaml")
	code, got, errs := run(t, with, "backtest", "--all", hooksDir+"/history.yaml")
	if !strings.Contains(want, `"event":"SessionStart"`) || !strings.Contains(want, `"event":"PreToolUse"`) {
		t.Fatalf("the corpus session answers no SessionStart or PreToolUse: the test would prove nothing:\n%s", want)
	}
	if code != 0 || got != want || errs != "" {
		t.Errorf("exit %d, stderr %q\ngot  %s\nwant %s", code, errs, got, want)
	}
}

// Claude Code 2.1.328 writes a top-level session_id beside sessionId on
// some records (gamma c0a1f007: its assistant records with the Bash call,
// the prompts' attachments): on stdin they are transcript entries, so the
// file piped in gives every payload the file named by path does (a feed
// answers in stream order, a list of transcripts in backtest.Run's).
func TestBacktestStdinSnakeSessionID(t *testing.T) {
	tr := corpusProjects + "/-home-dev-projects-gamma/c0a1f007-0000-4000-8000-000000000007.jsonl"
	raw := readFile(t, tr)
	if !strings.Contains(raw, `"type":"assistant"`) || !strings.Contains(raw, `"session_id":"c0a1f007-`) {
		t.Fatal("the corpus session has no line with both session ids: the test would prove nothing")
	}
	pcode, byPath, perrs := run(t, "", "backtest", "--all", hooksDir+"/history.yaml", tr)
	code, fromStdin, errs := run(t, raw, "backtest", "--all", hooksDir+"/history.yaml")
	for _, ev := range []string{"PreToolUse", "PostToolUse", "Stop", "UserPromptSubmit", "SessionStart"} {
		if !strings.Contains(byPath, `"event":"`+ev+`"`) {
			t.Fatalf("the file gives no %s payload: the test would prove nothing:\n%s", ev, byPath)
		}
	}
	sorted := func(s string) []string {
		l := strings.SplitAfter(s, "\n")
		slices.Sort(l)
		return l
	}
	if code != pcode || errs != perrs || !slices.Equal(sorted(fromStdin), sorted(byPath)) {
		t.Errorf("stdin: exit %d, stderr %q\n%s\nby path: exit %d, stderr %q\n%s", code, errs, fromStdin, pcode, perrs, byPath)
	}
}
