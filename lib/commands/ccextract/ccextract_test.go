package ccextract

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/commands/internal/load"
	"github.com/ccpipe/ccpipe/lib/records"
)

const sid = "22222222-3333-4444-8555-666666666666"

// A small transcript: a prompt, one API message written as two records
// (usage repeated), a failed Bash call and its result.
var transcriptLines = []string{
	`{"type":"user","uuid":"u1","timestamp":"2026-05-02T10:00:00.000Z","sessionId":"` + sid + `","cwd":"/p","message":{"role":"user","content":"fix <it> & go"},"promptId":"p1"}`,
	`{"type":"assistant","uuid":"a1","timestamp":"2026-05-02T10:00:01.000Z","sessionId":"` + sid + `","cwd":"/p","requestId":"req_1","message":{"id":"msg_1","model":"m1","content":[{"type":"text","text":"Trying."}],"usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":1}}}`,
	`{"type":"assistant","uuid":"a2","timestamp":"2026-05-02T10:00:02.000Z","sessionId":"` + sid + `","cwd":"/p","requestId":"req_1","message":{"id":"msg_1","model":"m1","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"make"}}],"usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":1}}}`,
	`{"type":"user","uuid":"r1","timestamp":"2026-05-02T10:00:03.000Z","sessionId":"` + sid + `","cwd":"/p","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"Exit code 2\nmake: *** no rule","is_error":true}]},"toolUseResult":"Error: Exit code 2\nmake: *** no rule"}`,
}

func writeTranscript(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "-p", sid+".jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Join(transcriptLines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func withSource(path string) string {
	var b strings.Builder
	for i, l := range transcriptLines {
		b.WriteString(`{"cc_source":{"path":"` + path + `","line":` + string(rune('1'+i)) + `,"session_id":"` + sid + `","agent_id":null},` + l[1:] + "\n")
	}
	return b.String()
}

const (
	usageLine  = `{"session_id":"` + sid + `","agent_id":null,"uuid":"a1","timestamp":"2026-05-02T10:00:01.000Z","message_id":"msg_1","request_id":"req_1","request_ref":null,"model":"m1","input_tokens":10,"output_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":1}` + "\n"
	shellLine  = `{"session_id":"` + sid + `","agent_id":null,"uuid":"a2","timestamp":"2026-05-02T10:00:02.000Z","tool_use_id":"toolu_1","tool":"Bash","command":"make","description":null,"exit_code":2,"is_error":true,"output":"make: *** no rule","background":false,"background_task_id":null,"denied":null,"interrupted":false,"persisted_output_path":null,"persisted_output_local_path":null,"result_uuid":"r1"}` + "\n"
	promptLine = `{"session_id":"` + sid + `","agent_id":null,"uuid":"u1","timestamp":"2026-05-02T10:00:00.000Z","text":"fix <it> & go","origin":"human","queued":false,"kind":"prompt","prompt_id":"p1"}` + "\n"
	usageHelp  = "usage: cc-extract KIND [flags] [TRANSCRIPT|DIR...]\nRun 'cc-extract -h' for help.\n"
)

func TestRun(t *testing.T) {
	path := writeTranscript(t)
	spaced := filepath.Join(filepath.Dir(path), "11111111-2222-4333-8444-555555555555.jsonl")
	if err := os.WriteFile(spaced, []byte(strings.ReplaceAll(transcriptLines[1], `":`, `": `)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(filepath.Dir(path))
	kinds := "prompts, texts, tools, shell, files, subagents, failures, usage, compactions, conversation"
	tests := []struct {
		name     string
		args     []string
		stdin    io.Reader
		code     int
		out, err string
	}{
		{"missing kind", nil, nil, 2, "", "cc-extract: missing KIND (one of " + kinds + ")\n" + usageHelp},
		{"unknown kind", []string{"bash"}, nil, 2, "", `cc-extract: unknown kind "bash" (want one of ` + kinds + ")\n" + usageHelp},
		{"flag of another kind", []string{"shell", "--sum", "day"}, nil, 2, "", "cc-extract: --sum applies to usage, not shell\n" + usageHelp},
		{"bad sum", []string{"usage", "--sum", "fortnight"}, nil, 2, "", `cc-extract: unknown --sum "fortnight" (want one of session, model, day, week, month, project, block, or several keys joined with commas such as day,model)` + "\n" + usageHelp},
		{"bad composite sum", []string{"usage", "--sum", "day,block"}, nil, 2, "", `cc-extract: --sum block stands alone (it cuts 5-hour windows, not groups)` + "\n" + usageHelp},
		{"sum key twice", []string{"usage", "--sum", "day,model,day"}, nil, 2, "", `cc-extract: --sum "day,model,day" names day twice` + "\n" + usageHelp},
		{"week start without week", []string{"usage", "--sum", "day", "--week-start", "sunday"}, nil, 2, "", `cc-extract: --week-start applies to --sum with week` + "\n" + usageHelp},
		{"bad week start", []string{"usage", "--sum", "week", "--week-start", "someday"}, nil, 2, "", `cc-extract: --week-start "someday": want a day of the week (monday, tuesday, wednesday, thursday, friday, saturday, sunday)` + "\n" + usageHelp},
		{"bad tz", []string{"usage", "--sum", "day", "--tz", "Mars/Olympus"}, nil, 2, "", `cc-extract: --tz "Mars/Olympus": not a time zone (want an IANA name such as Europe/Berlin, or UTC)` + "\n" + usageHelp},
		{"bad since", []string{"usage", "--since", "last tuesday"}, nil, 2, "", `cc-extract: --since "last tuesday": not a time (want RFC 3339, YYYY-MM-DD, YYYYMMDD, a duration ago (90m, 12h, 7d, 2w), today or yesterday)` + "\n" + usageHelp},
		{"bad format", []string{"usage", "--format", "xml"}, nil, 2, "", `cc-extract: --format "xml": want one of ndjson, table, csv, tsv` + "\n" + usageHelp},
		{"misspelt kind", []string{"shel"}, nil, 2, "", `cc-extract: unknown kind "shel" (want one of ` + kinds + "); did you mean shell?\n" + usageHelp},
		{"empty pipe", []string{"prompts"}, strings.NewReader(""), 0, "", ""},
		{"path", []string{"usage", path}, nil, 0, usageLine, ""},
		{"flags after the kind and path", []string{"shell", path, "--errors"}, nil, 0, shellLine, ""},
		{"directory", []string{"prompts", dir}, nil, 0, promptLine, ""},
		{"session records", []string{"shell"}, strings.NewReader(`{"session_id":"` + sid + `","transcript_path":"` + path + `","title":null}` + "\n"), 0, shellLine, ""},
		{"active session record", []string{"prompts"}, strings.NewReader(`{"session_id":"x","active":{"transcript_path":"` + path + `"}}` + "\n"), 0, promptLine, ""},
		{"session record without a path", []string{"prompts"}, strings.NewReader(`{"transcript_path":"` + path + `"}` + "\n" + `{"session_id":"y"}` + "\n"), 0, promptLine, "cc-extract: <stdin>:2: no transcript_path, record skipped\n"},
		{"entries with source", []string{"shell"}, strings.NewReader(withSource(path)), 0, shellLine, ""},
		{"entries without source", []string{"usage"}, strings.NewReader(strings.Join(transcriptLines, "\n")), 0, usageLine, ""},
		{"transcript file with spaces after the colons (fast path)", []string{"usage", spaced}, nil, 0, usageLine, ""},
		{"entries with spaces after the colons", []string{"usage"}, strings.NewReader(strings.ReplaceAll(transcriptLines[1], `":`, `": `) + "\n"), 0, usageLine, ""},
		{"entry with a field of the wrong type", []string{"usage"}, strings.NewReader(strings.Replace(transcriptLines[1], `"input_tokens":10`, `"input_tokens":"10"`, 1) + "\n"), 0,
			strings.Replace(usageLine, `"input_tokens":10`, `"input_tokens":0`, 1), "cc-extract: <stdin>:1: fields of an unexpected type read as empty: message.usage.input_tokens\n"},
		{"malformed entry", []string{"prompts"}, strings.NewReader("{\"type\":\n" + transcriptLines[0] + "\n"), 0, promptLine, "cc-extract: <stdin>:1: malformed JSON, line skipped\n"},
		{"neither entries nor sessions", []string{"prompts"}, strings.NewReader(`{"a":1}` + "\n"), 1, "", "cc-extract: <stdin>:1: not a transcript entry (no \"type\"), skipped\ncc-extract: <stdin>: no transcript entry read\n"},
		{"unreadable transcript", []string{"usage", "/nonexistent/x.jsonl", path}, nil, 1, usageLine, "cc-extract: open /nonexistent/x.jsonl: no such file or directory\ncc-extract: unreadable transcripts: 1\n"},
		{"sum with jq", []string{"usage", path, "--sum", "model", "-q", `"\(.model) \(.total_tokens) \(.messages)"`, "-r"}, nil, 0, "m1 116 1\n", ""},
		{"sum by session", []string{"usage", path, "--sum", "session"}, nil, 0, `{"session_id":"` + sid + `","project":"/p","input_tokens":10,"output_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":1,"total_tokens":116,"messages":1,"models":["m1"],"first_timestamp":"2026-05-02T10:00:01.000Z","last_timestamp":"2026-05-02T10:00:01.000Z","recorded_cost_usd":null}` + "\n", ""},
		{"subagents on entries", []string{"prompts", "--subagents"}, strings.NewReader(transcriptLines[0] + "\n"), 0, promptLine, "cc-extract: --subagents reads the subagent transcripts of sessions; entries come as they are (use cc-entries --subagents)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb strings.Builder
			code := Run(tt.args, tt.stdin, &out, &errb)
			if code != tt.code || out.String() != tt.out || errb.String() != tt.err {
				t.Errorf("got (%d,\n%q,\n%q)\nwant (%d,\n%q,\n%q)", code, out.String(), errb.String(), tt.code, tt.out, tt.err)
			}
		})
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// firstWrite records how much input had been read when stderr was first
// written to.
type firstWrite struct {
	in   *countingReader
	at   int
	seen bool
	strings.Builder
}

func (w *firstWrite) Write(p []byte) (int, error) {
	if !w.seen {
		w.seen, w.at = true, w.in.n
	}
	return w.Builder.Write(p)
}

// TestProbeBounded: lines of garbage before the first record are not held
// whole while cc-extract looks for the record that tells entries from
// sessions; past records.MaxProbe lines it reads on as entries, naming each.
func TestProbeBounded(t *testing.T) {
	garbage := strings.Repeat(strings.Repeat("x", 1023)+"\n", 4*records.MaxProbe)
	in := &countingReader{r: strings.NewReader(garbage + transcriptLines[0] + "\n")}
	var out strings.Builder
	errw := &firstWrite{in: in}
	if code := Run([]string{"prompts"}, in, &out, errw); code != 0 || out.String() != promptLine {
		t.Fatalf("exit %d out %q", code, out.String())
	}
	// the first ten are named, the rest counted (issue 13 item 16)
	if got := strings.Count(errw.String(), ": malformed JSON, line skipped\n"); got != 10 {
		t.Errorf("%d malformed lines named, want 10", got)
	}
	if want := fmt.Sprintf("<stdin>: %d more warnings about stdin lines not shown (%d in all)\n", 4*records.MaxProbe-10, 4*records.MaxProbe); !strings.Contains(errw.String(), want) {
		t.Errorf("no count line %q in %q", want, errw.String()[max(0, errw.Len()-300):])
	}
	if limit := records.MaxProbe*1024 + 256<<10; errw.at > limit {
		t.Errorf("%d bytes read before the first warning, want at most %d", errw.at, limit)
	}
}

func TestHelp(t *testing.T) {
	var out strings.Builder
	if code := Run([]string{"-h"}, nil, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"usage: cc-extract KIND", "conversation", "--sum GROUP", "--subagents", "Exit status"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// TestAddPathsSkipsUnreadableDirs: a dir that cannot be listed is named
// and skipped; the walk goes on (issue 13 item 6).
func TestAddPathsSkipsUnreadableDirs(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads a mode-000 dir")
	}
	root := t.TempDir()
	for _, d := range []string{"a", "b", "c"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
		os.WriteFile(filepath.Join(root, d, "aaaaaaaa-0000-4000-8000-000000000001.jsonl"), nil, 0o644)
	}
	if err := os.Chmod(filepath.Join(root, "b"), 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Join(root, "b"), 0o755)
	var added []string
	var skipped []error
	err := load.Transcripts([]string{root}, func(p string) error { added = append(added, p); return nil }, func(err error) { skipped = append(skipped, err) })
	if err != nil || len(added) != 2 || len(skipped) != 1 {
		t.Errorf("err %v, added %v, skipped %v", err, added, skipped)
	}
}

// TestNotTranscriptOneError: a file none of whose lines is an entry (text,
// another tool's NDJSON, binary) given to any kind fails with exit 1 and
// one error naming it (and the count), no warning per line and no word
// about subagents of a file with no session dir.
func TestNotTranscriptOneError(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	lines := strings.Repeat("not json at all\n", 30)
	if err := os.WriteFile(text, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.jsonl")
	if err := os.WriteFile(other, []byte(`{"a":1}`+"\n"+`{"b":2}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"prompts", "texts", "shell", "usage", "conversation"} {
		for _, tc := range []struct{ path, why string }{
			{text, "no valid line"},
			{other, `2 records without a "type" (cc-extract output, or another tool's NDJSON?)`},
		} {
			var out, errb strings.Builder
			code := Run([]string{kind, tc.path}, nil, &out, &errb)
			want := "cc-extract: " + tc.path + ": not a transcript: " + tc.why + "\ncc-extract: unreadable transcripts: 1\n"
			if code != 1 || out.String() != "" || errb.String() != want {
				t.Errorf("%s %s: got (%d, %q, %q), want (1, \"\", %q)", kind, tc.path, code, out.String(), errb.String(), want)
			}
		}
	}
}

// TestUnreadableTimestampWarned: --sum day, week, month (and block) put a
// message whose timestamp does not parse under an empty key, and say so:
// the first ten named (the value cut), then the count; once a message
// when several calendar keys are summed. A timestamp shaped like Claude
// Code's but not a time is not read as a date (it once gave "xxxxxxxxxx").
func TestUnreadableTimestampWarned(t *testing.T) {
	msg := func(i int, ts string) string {
		return fmt.Sprintf(`{"type":"assistant","uuid":"a%d","timestamp":%q,"sessionId":"%s","cwd":"/p","requestId":"req_%d","message":{"id":"msg_%d","model":"m1","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":1,"output_tokens":1}}}`, i, ts, sid, i, i)
	}
	in := msg(0, "2026-05-02T10:00:01.000Z") + "\n" + msg(1, "xxxxxxxxxxTxxxxxxxxxZ") + "\n" + msg(2, "yesterday "+strings.Repeat("z", 500)) + "\n"
	cut := `"yesterday ` + strings.Repeat("z", 69) + `…"`
	for _, sum := range []string{"day", "week", "month", "model,day,month"} {
		var out, errb strings.Builder
		code := Run([]string{"usage", "--sum", sum, "-q", `[.date // .week // .month // "-", .messages] | @text`, "-r"}, strings.NewReader(in), &out, &errb)
		first := strings.SplitN(sum, ",", 3)
		cal := first[0]
		if cal == "model" {
			cal = first[1]
		}
		wantErr := `cc-extract: message "msg_1": timestamp "xxxxxxxxxxTxxxxxxxxxZ" does not parse, summed under no ` + cal + "\n" +
			`cc-extract: message "msg_2": timestamp ` + cut + ` does not parse, summed under no ` + cal + "\n"
		if code != 0 || errb.String() != wantErr || !strings.Contains(out.String(), `[null,2]`) && !strings.Contains(out.String(), `["-",2]`) {
			t.Errorf("--sum %s: exit %d\nstdout %s\nstderr %q\nwant stderr %q", sum, code, out.String(), errb.String(), wantErr)
		}
	}
	var many strings.Builder
	for i := range 12 {
		many.WriteString(msg(i, "bad") + "\n")
	}
	var out, errb strings.Builder
	Run([]string{"usage", "--sum", "day"}, strings.NewReader(many.String()), &out, &errb)
	lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
	if len(lines) != 11 || lines[10] != "cc-extract: usage --sum day: 12 messages in all with no timestamp or one that does not parse" {
		t.Errorf("12 bad timestamps: %d lines, last %q", len(lines), lines[len(lines)-1])
	}
}
