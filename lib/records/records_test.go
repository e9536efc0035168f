package records

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		line      string
		kind      Kind
		path, sid string
	}{
		{`{"name":"work","source":"env","config_dir":"/c","projects_dir":"/c/projects"}`, Profile, "", ""},
		{`{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/w","active":null}`, Session, "/t.jsonl", "s1"},
		{`{"session_id":"s1","active":{"transcript_path":"/t.jsonl","socket_path":"/s.sock"}}`, Session, "/t.jsonl", "s1"},
		{`{"address":"p/x","pid":7,"session_id":"s1","socket_path":"/s.sock"}`, Session, "", "s1"},
		{`{"socket_path":"/tmp/cc-socks/4242.sock"}`, Session, "", ""},
		{`{"type":"user","uuid":"u1","sessionId":"s1","message":{"role":"user","content":"hi"}}`, Entry, "", "s1"},
		{`{"type":"file-history-snapshot","messageId":"m","snapshot":{}}`, Entry, "", ""},
		// Claude Code 2.1.328 writes a top-level session_id beside
		// sessionId on some records (testdata/corpus c0a1f007): still
		// entries, of the transcript's session.
		{`{"parentUuid":"p","isSidechain":false,"attachment":{"type":"date","date":"2026-11-30"},"type":"attachment","uuid":"u","session_id":"s1","userType":"external","sessionId":"s1","version":"2.1.328"}`, Entry, "", "s1"},
		{`{"type":"assistant","uuid":"u","session_id":"s0","sessionId":"s1","message":{"role":"assistant","content":[]}}`, Entry, "", "s1"},
		{`{"cc_source":{"path":"/t.jsonl","session_id":"s1"},"type":"user","session_id":"s0","sessionId":"s2"}`, Entry, "/t.jsonl", "s1"},
		{`{"cc_source":{"path":"/t.jsonl","line":3,"session_id":"s1","agent_id":null},"type":"user"}`, Entry, "/t.jsonl", "s1"},
		{`{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/w","hook_event_name":"Stop"}`, Hook, "/t.jsonl", "s1"},
		{`{"event":"Stop","session_id":"s1","transcript_path":"/t.jsonl"}`, Hook, "/t.jsonl", "s1"},
		{`{"session_id":"s1","uuid":"u1","text":"hi","kind":"prompt"}`, Fact, "", "s1"},
		{`{"session_id":"s1","uuid":"u1","type":"text"}`, Fact, "", "s1"},
		{`{"session_id":"s1","uuid":"u1","transcript_path":"/s/agent-a.jsonl","subagent_id":"a"}`, Fact, "/s/agent-a.jsonl", "s1"},
		{`{"date":"2026-01-01","input_tokens":5}`, Fact, "", ""},
		{`{"id":"c:0","index":0,"type":"model_input","timestamp":1,"payload":{},"prevHash":null}`, Fact, "", ""},
		{`{}`, Fact, "", ""},
		// A field of an unexpected type is present but gives no value.
		{`{"transcript_path":5,"session_id":null}`, Session, "", ""},
	}
	for _, tt := range tests {
		r, err := Classify([]byte(tt.line))
		if err != nil || r.Kind != tt.kind || r.TranscriptPath != tt.path || r.SessionID != tt.sid {
			t.Errorf("%s:\n got %v %q %q %v\nwant %v %q %q", tt.line, r.Kind, r.TranscriptPath, r.SessionID, err, tt.kind, tt.path, tt.sid)
		}
	}
	for _, bad := range []string{``, `[1]`, `"x"`, `{`, `{"a":1}x`, `hello`} {
		if _, err := Classify([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if r, _ := Classify([]byte(`{"transcript_path":"/t.jsonl"}`)); r.SessionPath() != "/t.jsonl" {
		t.Error("a session record's SessionPath")
	}
	if r, _ := Classify([]byte(`{"cc_source":{"path":"/t.jsonl"},"type":"user"}`)); r.SessionPath() != "" {
		t.Error("an entry stands for itself, not for a session")
	}
}

// TestClassifyCorpus reads every line the real Claude Code wrote in
// testdata/corpus: each is a transcript entry of its sessionId's session,
// those that also carry a top-level session_id among them.
func TestClassifyCorpus(t *testing.T) {
	files, err := filepath.Glob("../../testdata/corpus/claude/projects/*/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus transcripts: %v", err)
	}
	sub, _ := filepath.Glob("../../testdata/corpus/claude/projects/*/*/subagents/*.jsonl")
	both := 0
	for _, f := range append(files, sub...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var env struct {
				SessionID *string `json:"sessionId"`
				SnakeID   *string `json:"session_id"`
			}
			if err := json.Unmarshal([]byte(line), &env); err != nil {
				t.Fatalf("%s:%d: %v", f, i+1, err)
			}
			want := ""
			if env.SessionID != nil {
				want = *env.SessionID
			}
			if env.SnakeID != nil && env.SessionID != nil {
				both++
			}
			r, err := Classify([]byte(line))
			if err != nil || r.Kind != Entry || r.SessionID != want {
				t.Errorf("%s:%d: %v %q %v, want a transcript entry of %q", f, i+1, r.Kind, r.SessionID, err, want)
			}
			walkIsClassify(t, []byte(line))
		}
	}
	if both < 10 {
		t.Errorf("%d lines carry both sessionId and session_id, want the 10 of c0a1f007", both)
	}
}

// TestGoldenRecords classifies every record any ccpipe command prints, as
// its golden files hold them: each command's output is the kind the next
// command in a pipe must take it for.
func TestGoldenRecords(t *testing.T) {
	const root = "../.."
	type want struct {
		glob    string
		section string // the golden file's section: stdout or stderr
		kind    Kind
	}
	wants := []want{
		{"lib/commands/ccprofiles/testdata/*.golden", "stdout", Profile},
		{"lib/commands/ccsessions/testdata/swept.golden", "stdout", Swept},
		{"lib/commands/ccsessions/testdata/*.golden", "stdout", Session},
		{"lib/commands/ccentries/testdata/golden/verbatim/*.golden", "stdout", Entry},
		{"lib/commands/ccentries/testdata/golden/verbatim/*.golden", "stderr", Fact}, // --diagnostics
		{"lib/commands/ccentries/testdata/golden/own/*.golden", "stdout", Fact},      // --archive records
		{"lib/commands/ccentries/testdata/golden/own/*.golden", "stderr", Fact},
		{"lib/extract/testdata/golden/*/*.jsonl", "", Fact},
		{"lib/commands/ccgrep/testdata/*matches*.golden", "stdout", Fact}, // --matches: one hit each
		{"lib/commands/ccgrep/testdata/*.golden", "stdout", Session},
		{"lib/commands/ccsend/testdata/*.golden", "stdout", Session}, // receipts name their session
		{"lib/commands/ccsend/testdata/tables/*.golden", "stdout", Session},
		{"lib/commands/cchook/testdata/check/*.golden", "stdout", Fact},
		{"lib/commands/cchook/testdata/run/*.golden", "stdout", Fact}, // replies in Claude Code's schema
		{"lib/commands/cchook/testdata/out/parse.golden", "stdout", Hook},
		{"lib/commands/cchook/testdata/backtest/*.golden", "stdout", Fact},
		{"lib/commands/cchook/testdata/lint/*.golden", "stdout", Fact},
		{"lib/commands/cchook/testdata/test/*.golden", "stdout", Fact},
		{"lib/commands/cchook/testdata/out/reply_*.golden", "stdout", Fact},
		{"lib/commands/cccassette/testdata/records/*.golden", "stdout", Fact},
		{"lib/commands/cccassette/testdata/stored/*.golden", "stdout", Fact},
		{"lib/commands/cccassette/testdata/corpus/*.ndjson", "", Fact},
		{"lib/commands/ccredact/testdata/*.golden", "stdout", Fact},
		{"lib/commands/ccredact/testdata/redacted/*.golden", "stdout", Entry},
		{"lib/commands/ccstatusline/testdata/*.golden", "stdout", Fact},
		{"lib/commands/ccotel/testdata/*.golden", "stdout", Fact},            // per-signal summaries
		{"lib/commands/ccredact/testdata/hook/[^s]*.golden", "stdout", Fact}, // hook replies
	}
	// --print-settings and cc-hook settings print one indented settings.json
	// object for a person to paste, not records for a pipe.
	settings := []string{"lib/commands/cchook/testdata/out/settings.golden", "lib/commands/ccredact/testdata/hook/settings.golden", "lib/commands/ccentries/testdata/golden/settings.golden"}
	// Golden files write some values as placeholders ("size_bytes":$SIZE).
	placeholder := regexp.MustCompile(`:\$[A-Z_]+`)
	covered := map[string]bool{}
	for _, f := range settings {
		covered[filepath.Join(root, f)] = true
	}
	n := 0
	for _, w := range wants {
		files, err := filepath.Glob(filepath.Join(root, w.glob))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no files", w.glob)
		}
		for _, f := range files {
			if covered[f] {
				continue // an earlier, narrower glob took it
			}
			covered[f] = true
			for _, line := range records(t, f, w.section) {
				line = placeholder.ReplaceAllString(line, ":0")
				r, err := Classify([]byte(line))
				if err != nil || r.Kind != w.kind {
					t.Errorf("%s: %v %v, want %v: %.200s", f, r.Kind, err, w.kind, line)
				}
				walkIsClassify(t, []byte(line))
				n++
			}
		}
	}
	// Every command's golden directory is in the table.
	all, _ := filepath.Glob(filepath.Join(root, "lib/commands/*/testdata/*.golden"))
	more, _ := filepath.Glob(filepath.Join(root, "lib/commands/*/testdata/*/*.golden"))
	more2, _ := filepath.Glob(filepath.Join(root, "lib/commands/*/testdata/*/*/*.golden"))
	for _, f := range append(append(all, more...), more2...) {
		if !covered[f] && len(records(t, f, "stdout")) > 0 {
			t.Errorf("%s holds records but is not in the table", f)
		}
	}
	if n < 500 {
		t.Errorf("only %d records classified", n)
	}
}

// records returns the JSON object lines of a golden file's section ("":
// the whole file).
func records(t *testing.T, path, section string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	cur := "stdout" // a file without sections is all output
	var out []string
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "-- ") && strings.HasSuffix(l, " --") {
			cur = strings.Trim(l, "- ")
			continue
		}
		if strings.HasPrefix(l, "{") && (section == "" || cur == section) {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWalkEntry: WalkEntry tells an entry as Classify does and stops
// reading at the member its reader last wanted once the line is known to
// be one; a record with a "type" that is not an entry (a fact piped back
// in, whose values hold one; a cassette step) is walked to its end.
func TestWalkEntry(t *testing.T) {
	tests := []struct {
		line  string
		kind  Kind
		typed bool
		read  string // the keys handed to the reader, up to the sessionId it wants
	}{
		// Claude Code 2.1.328 writes the sessionId after the message.
		{`{"parentUuid":null,"type":"user","message":{"content":"hi"},"uuid":"u","sessionId":"s","version":"2.1.328"}`, Entry, true, "parentUuid type message uuid sessionId"},
		// Older lines: the "type" after the sessionId, read up to it.
		{`{"parentUuid":null,"sessionId":"s","version":"2","type":"user","message":{"content":"hi"}}`, Entry, true, "parentUuid sessionId"},
		{`{"cc_source":{"path":"/t.jsonl"},"sessionId":"s","message":{}}`, Entry, false, "cc_source sessionId"},
		{`{"type":"file-history-snapshot","messageId":"m","snapshot":{"type":"x"}}`, Entry, true, "type messageId snapshot"},
		// cc-extract tools output of a call whose input holds a "type".
		{`{"session_id":"s","agent_id":null,"uuid":"a1","tool_use_id":"t","name":"Widget","input":{"type":"gear"},"sessionId":"s","result":"ok"}`, Fact, false, "session_id agent_id uuid tool_use_id name input sessionId"},
		{`{"session_id":"s","uuid":"a1","content":[{"type":"text","text":"x"}]}`, Fact, false, "session_id uuid content"},
		{`{"id":"t:1","index":1,"type":"model_output","timestamp":1,"payload":{"type":"tool_calls"},"prevHash":"h","hash":"h2"}`, Fact, true, "id index type timestamp payload prevHash hash"},
		{`{"hook_event_name":"Stop","session_id":"s","type":"x"}`, Hook, true, "hook_event_name session_id type"},
		{`{"session_id":"s","transcript_path":"/t.jsonl","type":"x"}`, Fact, true, "session_id transcript_path type"},
		{`{"session_id":"s","transcript_path":"/t.jsonl"}`, Session, false, "session_id transcript_path"},
		// An escaped key counts as its name, as in Classify.
		{`{"t\u0079pe":"user","sessionId":"s","x":1}`, Entry, true, "t\\u0079pe sessionId"},
	}
	for _, tt := range tests {
		var read []string
		kind, typed, err := WalkEntry([]byte(tt.line), func(m *jsonscan.Member) bool {
			read = append(read, string(m.Key))
			return string(m.Key) != "sessionId"
		})
		if err != nil || kind != tt.kind || typed != tt.typed || strings.Join(read, " ") != tt.read {
			t.Errorf("%s:\n got %v %v %v, read %q\nwant %v %v, read %q", tt.line, kind, typed, err, read, tt.kind, tt.typed, tt.read)
		}
		walkIsClassify(t, []byte(tt.line))
	}
	// A line known to be an entry is not read past what it was wanted
	// for, and one not yet known is read on.
	for _, tt := range []struct {
		line string
		ok   bool
	}{
		{`{"type":"user","sessionId":"s", not json`, true},
		{`{"sessionId":"s","version":"2","type":"user", not json`, true},
		{`{"sessionId":"s","version":"2", not json`, false},
	} {
		kind, _, err := WalkEntry([]byte(tt.line), func(*jsonscan.Member) bool { return false })
		if (kind == Entry && err == nil) != tt.ok {
			t.Errorf("%s: %v %v", tt.line, kind, err)
		}
	}
	for _, bad := range []string{``, `[1]`, `"x"`, `{`, `{"a":1}x`, `hello`, `{"type":"user"`} {
		if _, _, err := WalkEntry([]byte(bad), func(*jsonscan.Member) bool { return true }); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// walkIsClassify checks WalkEntry against Classify, its slow twin: read to
// the end, it gives Classify's kind (and error, or none); stopped at any
// member, Classify's kind of a valid line.
func walkIsClassify(t *testing.T, line []byte) {
	t.Helper()
	r, cerr := Classify(line)
	var members []string
	kind, typed, err := WalkEntry(line, func(m *jsonscan.Member) bool {
		members = append(members, string(m.Bytes))
		return true
	})
	var want []string
	_ = jsonscan.Members(line, func(m *jsonscan.Member) error {
		want = append(want, string(m.Bytes))
		return nil
	})
	if (err == nil) != (cerr == nil) || cerr == nil && kind != r.Kind || !slices.Equal(members, want) {
		t.Fatalf("%q: WalkEntry %v %v %d members, Classify %v %v %d members", line, kind, err, len(members), r.Kind, cerr, len(want))
	}
	if cerr == nil && typed != typedSlow(line) {
		t.Fatalf("%q: typed %v", line, typed)
	}
	for stop := range len(want) {
		i := 0
		kind, _, err := WalkEntry(line, func(*jsonscan.Member) bool { i++; return i <= stop })
		if cerr == nil && (err != nil || kind != r.Kind) {
			t.Fatalf("%q stopped at member %d: %v %v, Classify %v", line, stop, kind, err, r.Kind)
		}
	}
}

// typedSlow: the line has a top-level "type" (encoding/json's reading).
func typedSlow(line []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return false
	}
	_, ok := m["type"]
	return ok
}

// FuzzWalkEntry: WalkEntry is Classify's rule of an entry, however far
// its reader wants the line read.
func FuzzWalkEntry(f *testing.F) {
	f.Add([]byte(`{"parentUuid":null,"type":"user","message":{"content":"hi"},"uuid":"u","sessionId":"s"}`))
	f.Add([]byte(`{"session_id":"s","uuid":"a1","name":"Widget","input":{"type":"gear"}}`))
	f.Add([]byte(`{"id":"t:1","index":1,"type":"model_output","payload":{"type":"tool_calls"},"prevHash":"h"}`))
	f.Add([]byte(`{"cc_source":{"path":"/t"},"message":{"type":"x"}}`))
	f.Add([]byte(`{"t\u0079pe":"x","sessionId":"s"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		walkIsClassify(t, line)
	})
}

func FuzzClassify(f *testing.F) {
	f.Add([]byte(`{"cc_source":{"path":"/t"},"type":"user"}`))
	f.Add([]byte(`{"active":{"transcript_path":"/t"},"session_id":"s"}`))
	f.Add([]byte(`{"type":"x","index":1}`))
	f.Add([]byte(`{"history_path":"/h","session_id":"s"}`))
	f.Add([]byte(`{"type":"assistant","uuid":"u","session_id":"s","sessionId":"s"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := Classify(line)
		if err == nil && r.Kind > Swept {
			t.Fatalf("kind %d", r.Kind)
		}
		if r.Kind == Entry && r.SessionPath() != "" {
			t.Fatal("an entry with a session path")
		}
	})
}
