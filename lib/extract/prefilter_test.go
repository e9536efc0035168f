package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// feed runs lines through x as a file read does, filter first: a line
// the filter refuses is not decoded.
func feed(t *testing.T, x *Extractor, lines ...string) {
	t.Helper()
	f := x.filter(x.h)
	for i, l := range lines {
		if f != nil && !f([]byte(l)) {
			continue
		}
		e, err := x.Decode([]byte(l))
		if err != nil {
			t.Fatalf("setup line %d: %v", i+1, err)
		}
		if err := x.Entry(Origin{Line: i + 1}, e); err != nil {
			t.Fatal(err)
		}
	}
}

const (
	useBash  = `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}}`
	useRead  = `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_2","name":"Read","input":{"file_path":"/a"}}]}}`
	useAgent = `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_3","name":"Agent","input":{"prompt":"p"}}]}}`
)

// result is a user line answering id, with extra members in the block
// and on the record.
func resultLine(id, block, record string) string {
	return `{"type":"user","message":{"content":[{"tool_use_id":"` + id + `","type":"tool_result","content":"out"` + block + `}]}` + record + `}`
}

func TestLineFilters(t *testing.T) {
	for _, tt := range []struct {
		name   string
		opts   Options
		before []string
		line   string
		keep   bool // false: the filter is sharp enough to drop it
	}{
		{"shell: Bash call", Options{Kind: "shell"}, nil, useBash, true},
		{"shell: Bash named with an escape", Options{Kind: "shell"}, nil, strings.Replace(useBash, `"Bash"`, `"\u0042ash"`, 1), true},
		{"shell: blanks in the block", Options{Kind: "shell"}, nil, `{"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}]}}`, true},
		{"shell: PowerShell call", Options{Kind: "shell"}, nil, strings.Replace(useBash, `"Bash"`, `"PowerShell"`, 1), true},
		{"shell: Read call", Options{Kind: "shell"}, nil, useRead, false},
		{"shell: bash in lower case is not Bash", Options{Kind: "shell"}, nil, strings.Replace(useBash, `"Bash"`, `"bash"`, 1), false},
		{"shell: result of a pending Bash call", Options{Kind: "shell"}, []string{useBash}, resultLine("toolu_1", "", ""), true},
		{"shell: result of a Read call", Options{Kind: "shell"}, []string{useRead}, resultLine("toolu_2", "", ""), false},
		{"shell: result before its call", Options{Kind: "shell"}, nil, resultLine("toolu_7", "", ""), true},
		{"shell: result id escaped", Options{Kind: "shell"}, []string{useRead}, resultLine(`toolu_\u0032`, "", ""), true},
		{"shell: result key in capitals", Options{Kind: "shell"}, []string{useRead},
			`{"type":"user","message":{"content":[{"TOOL_USE_ID":"toolu_2","type":"tool_result","content":"x"}]}}`, true},
		{"shell: result key with a blank", Options{Kind: "shell"}, []string{useRead},
			`{"type":"user","message":{"content":[{"tool_use_id": "toolu_2","type":"tool_result","content":"x"}]}}`, true},
		{"shell: a second tool_use_id in the line", Options{Kind: "shell"}, []string{useRead},
			resultLine("toolu_2", "", `,"toolUseResult":{"tool_use_id":"toolu_2"}`), true},
		{"shell: result of a Read call and a pending Bash call", Options{Kind: "shell"}, []string{useBash, useRead},
			`{"type":"user","message":{"content":[{"tool_use_id":"toolu_2","type":"tool_result","content":"x"},{"tool_use_id":"toolu_1","type":"tool_result","content":"y"}]}}`, true},
		{"shell: answered Bash call answered again", Options{Kind: "shell"}, []string{useBash, resultLine("toolu_1", "", "")}, resultLine("toolu_1", "", ""), false},
		{"shell --errors: success of a pending call, answered in place", Options{Kind: "shell", Errors: true}, []string{useBash},
			resultLine("toolu_1", `,"is_error":false`, `,"toolUseResult":{"stdout":"x","interrupted":false}`), false},
		{"files: success of a pending Read, answered in place", Options{Kind: "files"}, []string{useRead}, resultLine("toolu_2", "", ""), false},
		{"files: success of a pending Write", Options{Kind: "files"}, []string{strings.Replace(useRead, `"Read"`, `"Write"`, 1)}, resultLine("toolu_2", "", ""), true},
		{"files: refusal of a pending Read", Options{Kind: "files"}, []string{useRead}, resultLine("toolu_2", "", `,"toolDenialKind":"user-rejected"`), true},
		{"tools --errors: success of a pending call, answered in place", Options{Kind: "tools", Errors: true}, []string{useRead}, resultLine("toolu_2", "", ""), false},
		{"tools --errors: success of a pending call, an id twice", Options{Kind: "tools", Errors: true}, []string{useRead},
			strings.Replace(resultLine("toolu_2", "", ""), `]}`, `,{"tool_use_id":"toolu_2","type":"tool_result","content":"x"}]}`, 1), true},
		{"shell --errors: failure of a pending call", Options{Kind: "shell", Errors: true}, []string{useBash}, resultLine("toolu_1", `,"is_error":true`, ""), true},
		{"tools --errors: success before its call", Options{Kind: "tools", Errors: true}, nil, resultLine("toolu_1", "", ""), true},
		{"tools --errors: malformed success", Options{Kind: "tools", Errors: true}, []string{useBash}, strings.Replace(resultLine("toolu_1", "", ""), `"out"`, `"out",`, 1), true},
		{"files: Write call", Options{Kind: "files"}, nil, strings.Replace(useBash, `"Bash"`, `"Write"`, 1), true},
		{"files: MultiEdit call", Options{Kind: "files"}, nil, strings.Replace(useBash, `"Bash"`, `"MultiEdit"`, 1), true},
		{"files: Bash call", Options{Kind: "files"}, nil, useBash, false},
		{"tools: any call", Options{Kind: "tools"}, nil, strings.Replace(useBash, `"Bash"`, `"Grep"`, 1), true},
		{"tools: pending result", Options{Kind: "tools"}, []string{useRead}, resultLine("toolu_2", "", ""), true},
		{"tools: a prompt", Options{Kind: "tools"}, nil, `{"type":"user","message":{"content":"hi"}}`, false},
		{"subagents: Agent call", Options{Kind: "subagents"}, nil, useAgent, true},
		{"subagents: Task call", Options{Kind: "subagents"}, nil, strings.Replace(useAgent, `"Agent"`, `"Task"`, 1), true},
		{"subagents: Bash call", Options{Kind: "subagents"}, nil, useBash, false},
		{"subagents: result of the Agent call", Options{Kind: "subagents"}, []string{useAgent}, resultLine("toolu_3", "", ""), true},
		{"subagents: result of a Bash call", Options{Kind: "subagents"}, []string{useBash}, resultLine("toolu_1", "", ""), false},
		{"subagents: task notification", Options{Kind: "subagents"}, nil,
			`{"type":"user","message":{"content":"<task-notification><task-id>a</task-id></task-notification>"},"origin":{"kind":"task-notification"}}`, true},
		{"failures: a call is noted, not read", Options{Kind: "failures"}, nil, useRead, false},
		{"failures: a call a fork may have copied", Options{Kind: "failures"}, nil,
			strings.Replace(useRead, `{"type":"assistant",`, `{"type":"assistant","requestSessionId":"s0",`, 1), true},
		{"failures: a call whose name has an escape", Options{Kind: "failures"}, nil, strings.Replace(useBash, `"Bash"`, `"B\u0061sh"`, 1), true},
		{"failures: a call with a key in capitals", Options{Kind: "failures"}, nil, strings.Replace(useBash, `"name"`, `"NAME"`, 1), true},
		{"failures: a call on a cut line", Options{Kind: "failures"}, nil, useBash[:len(useBash)-1], true},
		{"failures: error result", Options{Kind: "failures"}, []string{useRead}, resultLine("toolu_2", `,"is_error":true`, ""), true},
		{"failures: error result, key in capitals", Options{Kind: "failures"}, []string{useRead}, resultLine("toolu_2", `,"IS_ERROR":true`, ""), true},
		{"failures: error result, blank", Options{Kind: "failures"}, []string{useRead}, resultLine("toolu_2", `,"is_error": true`, ""), true},
		{"failures: error result, folded letter", Options{Kind: "failures"}, []string{useRead}, resultLine("toolu_2", `,"iſ_error":true`, ""), true},
		{"failures: error result of an unknown call", Options{Kind: "failures"}, nil, resultLine("toolu_9", `,"is_error":true`, ""), true},
		{"failures: refusal", Options{Kind: "failures"}, []string{useRead}, resultLine("toolu_2", "", `,"toolDenialKind":"user-rejected"`), true},
		{"failures: refusal by Kelvin sign", Options{Kind: "failures"}, []string{useRead}, resultLine("toolu_2", "", `,"toolDenial`+"\u212a"+`ind":"x"`), true},
		{"failures: accepted decision", Options{Kind: "failures"}, []string{useRead}, resultLine("toolu_2", "", `,"permissionDecision":{"decision":"accept","source":"config"}`), false},
		{"failures: accepted decision, a second decision", Options{Kind: "failures"}, []string{useRead},
			resultLine("toolu_2", "", `,"permissionDecision":{"decision":"accept","Decision":"reject"}`), true},
		{"failures: accepted decision, key in capitals", Options{Kind: "failures"}, []string{useRead},
			resultLine("toolu_2", "", `,"PermissionDecision":{"decision":"accept"}`), true},
		{"failures: rejected decision", Options{Kind: "failures"}, []string{useRead}, resultLine("toolu_2", "", `,"permissionDecision":{"decision":"reject","source":"hook"}`), true},
		{"failures: hook decision", Options{Kind: "failures"}, []string{useRead}, resultLine("toolu_2", "", `,"permissionDecision":{"decision":"reject"}`), true},
		{"failures: interrupted", Options{Kind: "failures"}, []string{useRead}, resultLine("toolu_2", "", `,"toolUseResult":{"interrupted":true}`), true},
		{"failures: interrupted text", Options{Kind: "failures"}, []string{useRead},
			strings.Replace(resultLine("toolu_2", "", ""), `"out"`, `"[Request interrupted by user for tool use]"`, 1), true},
		{"failures: plain success of a pending call, answered in place", Options{Kind: "failures"}, []string{useRead},
			resultLine("toolu_2", `,"is_error":false`, `,"toolUseResult":{"stdout":"x","interrupted":false}`), false},
		{"failures: plain success of a pending call, a key twice", Options{Kind: "failures"}, []string{useRead},
			resultLine("toolu_2", `,"type":"text"`, ``), true},
		{"failures: plain success of no pending call", Options{Kind: "failures"}, nil,
			resultLine("toolu_2", `,"is_error":false`, `,"toolUseResult":{"stdout":"x","interrupted":false}`), false},
		{"failures: API error message", Options{Kind: "failures"}, nil, `{"type":"assistant","isAPIErrorMessage":true,"message":{"content":[{"type":"text","text":"x"}]}}`, true},
		{"failures: API retry", Options{Kind: "failures"}, nil, `{"type":"system","subtype":"api_error","error":{}}`, true},
		{"failures: other system record", Options{Kind: "failures"}, nil, `{"type":"system","subtype":"turn_duration"}`, false},
		{"failures: hook error attachment", Options{Kind: "failures"}, nil, `{"type":"attachment","attachment":{"type":"hook_non_blocking_error"}}`, true},
		{"failures: hook success attachment", Options{Kind: "failures"}, nil, `{"type":"attachment","attachment":{"type":"hook_success"}}`, false},
		{"failures: Stop hook feedback", Options{Kind: "failures"}, nil, `{"type":"user","isMeta":true,"message":{"content":"Stop hook feedback:\nno"}}`, true},
		{"failures: a prompt", Options{Kind: "failures"}, nil, `{"type":"user","message":{"content":"hi"}}`, false},
		{"conversation: calls only, after the file's own assistant record", Options{Kind: "conversation"},
			[]string{`{"type":"assistant","sessionId":"s","message":{"content":[{"type":"text","text":"hi"}]}}`},
			`{"type":"assistant","sessionId":"s","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]}}`, false},
		{"conversation: calls and a text", Options{Kind: "conversation"},
			[]string{`{"type":"assistant","sessionId":"s","message":{"content":[{"type":"text","text":"hi"}]}}`},
			`{"type":"assistant","sessionId":"s","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}},{"type":"text","text":"x"}]}}`, true},
		{"conversation: calls only, another session", Options{Kind: "conversation"},
			[]string{`{"type":"assistant","sessionId":"s","message":{"content":[{"type":"text","text":"hi"}]}}`},
			`{"type":"assistant","sessionId":"t","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]}}`, true},
		{"conversation: calls only, before the file's own assistant record", Options{Kind: "conversation"}, nil,
			`{"type":"assistant","sessionId":"s","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]}}`, true},
		{"prompts: a prompt", Options{Kind: "prompts"}, nil, `{"type":"user","message":{"content":"hi"}}`, true},
		{"prompts: queued command", Options{Kind: "prompts"}, nil, `{"type":"attachment","attachment":{"type":"queued_command","prompt":"x"}}`, true},
		{"prompts: other attachment", Options{Kind: "prompts"}, nil, `{"type":"attachment","attachment":{"type":"hook_success"}}`, false},
		{"texts: text block", Options{Kind: "texts"}, nil, `{"type":"assistant","message":{"content":[{"type":"text","text":"x"}]}}`, true},
		{"texts: thinking with --thinking", Options{Kind: "texts", Thinking: true}, nil, `{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"x"}]}}`, true},
		{"texts: thinking only", Options{Kind: "texts"}, nil, `{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"x"}]}}`, false},
		{"texts: a call only", Options{Kind: "texts"}, nil, useBash, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x, err := New(tt.opts, func(any) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			feed(t, x, tt.before...)
			f := x.filter(x.h)
			if got := f([]byte(tt.line)); got != tt.keep {
				t.Errorf("filter = %v, want %v: %s", got, tt.keep, tt.line)
			}
		})
	}
}

// genTranscript writes a transcript of n lines chosen by r from pieces
// that exercise each kind's filter: calls of several tools (names
// escaped, blanks), results of pending, answered, unknown and later
// calls, failures of every source, prompts, notifications, keys in other
// cases and escapes. Call ids are unique, as Claude Code's are.
func genTranscript(r *rand.Rand, n int) string {
	var b strings.Builder
	calls := 0
	id := func(k int) string { return fmt.Sprintf("toolu_%d", k) }
	pick := func(s ...string) string { return s[r.IntN(len(s))] }
	resultID := func() string {
		switch r.IntN(4) {
		case 0:
			return id(calls + 1 + r.IntN(2)) // a call still to come
		case 1:
			return "toolu_zz"
		}
		return id(max(calls-r.IntN(3), 0))
	}
	for range n {
		var line string
		switch r.IntN(9) {
		case 0, 1:
			name := pick("Bash", "Read", "Write", "Agent", "Task", "PowerShell", "Edit", "Grep", `\u0042ash`, "bash", "MultiEdit")
			calls++
			in := pick(`{"command":"ls","description":"d"}`, `{"file_path":"/f"}`, `{"prompt":"p","subagent_type":"x","run_in_background":true}`, `{}`)
			block := `{"type":"tool_use","id":"` + id(calls) + `","name":"` + name + `","input":` + in + `}`
			switch r.IntN(4) {
			case 0: // members in the generated corpus's order (blockIDs)
				block = `{"id":"` + id(calls) + `","input":` + in + `,"name":"` + name + `","type":"tool_use"}`
			case 1: // and odd ones: a key twice or in another case, an input holding an id
				block = pick(`{"id":"`+id(calls)+`","input":{"id":"x","type":"tool_use"},"name":"`+name+`","type":"tool_use"}`,
					`{"id":"`+id(calls)+`","name":"`+name+`","ID":"zz","type":"tool_use","input":{}}`,
					`{"id":"`+id(calls)+`","name":"`+name+`","type":"tool_use","type":"text","input":{}}`,
					`{"input":{},"name":"`+name+`","type":"tool_use"},{"type":"text","text":"`+id(calls)+`"}`)
			}
			if r.IntN(4) == 0 {
				calls++
				block += `,{"type": "tool_use", "id": "` + id(calls) + `", "name": "` + pick("Bash", "Agent", "Read") + `", "input": {}}`
			}
			// Sometimes a fork's copy (another session made the request),
			// or a session of its own.
			sess := pick(``, ``, ``, `"sessionId":"s1",`, `"sessionId":"s1","requestSessionId":"s0",`, `"sessionId":"s2",`)
			line = `{"type":"assistant",` + sess + `"uuid":"a` + id(calls) + `","message":{"id":"msg_1","content":[` + block + `]}}`
		case 2, 3:
			key := pick(`"tool_use_id"`, `"tool_use_id"`, `"tool_use_id"`, `"TOOL_USE_ID"`, `"tool\u005fuse_id"`)
			ridv := resultID()
			if r.IntN(6) == 0 {
				ridv = strings.Replace(ridv, "_", `\u005f`, 1)
			}
			rid := key + `:"` + ridv + `"`
			if r.IntN(6) == 0 {
				rid = key + `: "` + ridv + `"`
			}
			content := pick(`"out"`, `"Exit code 2\nerr"`, `"[Request interrupted by user for tool use]"`, `[{"type":"text","text":"t"}]`)
			flag := pick("", "", `,"is_error":false`, `,"is_error":true`, `,"IS_ERROR":true`, `,"is_error": true`)
			rec := pick("", "", `,"toolUseResult":{"stdout":"o","stderr":"","interrupted":false}`, `,"toolUseResult":{"interrupted":true}`,
				`,"toolUseResult":{"status":"completed","agentId":"ag1","content":[{"type":"text","text":"r"}]}`,
				`,"toolUseResult":{"status":"async_launched","agentId":"ag2"}`, `,"toolDenialKind":"user-rejected"`,
				`,"permissionDecision":{"decision":"reject","source":"hook"}`, `,"toolUseResult":{"tool_use_id":"`+resultID()+`"}`,
				`,"permissionDecision":{"decision":"accept","source":"config"}`, `,"permissionDecision":{"decision":"accept","DECISION":"reject"}`,
				`,"permissionDecision":{"source":"hook","decision":"reject"}`,
				`,"toolUseResult":{"type":"create"}`)
			block := `{` + rid + `,"type":"tool_result","content":` + content + flag + `}`
			if r.IntN(5) == 0 {
				block += `,{"tool_use_id":"` + resultID() + `","type":"tool_result","content":"two"}`
			}
			line = `{"type":"user",` + pick(``, ``, `"sessionId":"s1",`, `"sessionId":"s2",`) + `"uuid":"u","message":{"role":"user","content":[` + block + `]}` + rec + `}`
		case 4:
			line = pick(`{"type":"user","message":{"content":"hi"}}`,
				`{"type":"user","isMeta":true,"message":{"content":"Stop hook feedback:\nno"}}`,
				`{"type":"user","message":{"content":"<task-notification><task-id>ag2</task-id><tool-use-id>`+resultID()+`</tool-use-id><status>completed</status><result>done</result></task-notification>"},"origin":{"kind":"task-notification"}}`,
				`{"type":"user","message":{"content":[{"type":"text","text":"tool_result"}]}}`)
		case 5:
			line = pick(`{"type":"system","subtype":"api_error","error":{"message":"m","status":529},"retryAttempt":1,"maxRetries":3}`,
				`{"type":"system","subtype":"informational","promptSubmitEnding":{"ending":{"kind":"blocked_by_hook","reason":"r"}}}`,
				`{"type":"system","subtype":"stop_hook_summary","hookErrors":["e"],"toolUseID":"s1"}`,
				`{"type":"system","subtype":"turn_duration"}`,
				`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto"}}`)
		case 6:
			line = pick(`{"type":"attachment","attachment":{"type":"queued_command","prompt":"q"}}`,
				`{"type":"attachment","attachment":{"type":"hook_non_blocking_error","hookEvent":"Stop","toolUseID":"s1","stderr":"e"}}`,
				`{"type":"attachment","attachment":{"type":"hook_blocking_error","blockingError":{"blockingError":"b"}}}`,
				`{"type":"attachment","attachment":{"type":"hook_success"}}`)
		case 7:
			line = pick(`{"type":"assistant","message":{"content":[{"type":"text","text":"x"},{"type":"thinking","thinking":"y"}]}}`,
				`{"type":"assistant","isApiErrorMessage":true,"message":{"content":[{"type":"text","text":"API Error"}]}}`,
				`{"type":"assistant","ISAPIERRORMESSAGE":true,"message":{"content":[{"type":"text","text":"API Error"}]}}`,
				`{"type":"user","isCompactSummary":true,"message":{"content":"summary"}}`)
		default:
			line = pick(`{"type":"user","message":{"content":[{"tool_use_id":"`+resultID()+`","type":"tool_result"`, // cut
				`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"x","name":"Bash"}]},}`, ``)
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// collecting returns an Extractor of opts that writes its facts as JSON
// lines into out, with the prefilters off when off.
func collecting(t *testing.T, opts Options, off bool) (x *Extractor, out *bytes.Buffer) {
	t.Helper()
	out = new(bytes.Buffer)
	x, err := New(opts, func(v any) error {
		b, err := json.Marshal(v)
		out.Write(b)
		out.WriteByte('\n')
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	x.noPrefilter = off
	return x, out
}

// kindOutput is the facts of opts over the transcript at path, with or
// without the prefilters.
func kindOutput(t *testing.T, opts Options, path string, off bool) string {
	t.Helper()
	x, out := collecting(t, opts, off)
	_ = x.ReadTranscript(context.Background(), path)
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

var prefilterVariants = []Options{
	{Kind: "shell"}, {Kind: "shell", Errors: true}, {Kind: "files"}, {Kind: "tools"}, {Kind: "tools", Errors: true},
	{Kind: "subagents"}, {Kind: "failures"}, {Kind: "prompts"}, {Kind: "prompts", All: true}, {Kind: "conversation", Thinking: true},
	{Kind: "texts"}, {Kind: "texts", Thinking: true}, {Kind: "compactions"}, {Kind: "conversation"}, {Kind: "files", Unique: true},
}

// entriesOutput is kindOutput with the lines fed as entries on stdin
// are: no line filter, Extractor.Decode's choice of decode.
func entriesOutput(t *testing.T, opts Options, path string, off bool) string {
	t.Helper()
	x, out := collecting(t, opts, off)
	data, _ := os.ReadFile(path)
	for i, line := range bytes.Split(data, []byte("\n")) {
		want, valid := x.WantsChecked(line)
		if valid && !jsonscan.Valid(line) {
			t.Fatalf("%+v: WantsChecked says line %d is valid JSON: %q", opts, i+1, line)
		}
		if !want {
			continue
		}
		e, err := x.Decode(line)
		if err != nil {
			continue
		}
		if err := x.Entry(Origin{Line: i + 1}, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// checkPrefilters: every kind writes the same facts with its prefilter
// as without it (the reference: every line of the kind's types read and
// decoded in full), from files and as entries on stdin.
func checkPrefilters(t *testing.T, path string) {
	t.Helper()
	for _, opts := range prefilterVariants {
		for _, way := range []func(*testing.T, Options, string, bool) string{kindOutput, entriesOutput} {
			with, without := way(t, opts, path, false), way(t, opts, path, true)
			if with != without {
				data, _ := os.ReadFile(path)
				t.Fatalf("%+v: with the prefilter\n%s\nwithout\n%s\ntranscript\n%s", opts, with, without, data)
			}
		}
	}
}

// TestPrefiltersGenerated: checkPrefilters on generated transcripts, half
// of them with corrupted bytes; -short checks 30 of the 300.
func TestPrefiltersGenerated(t *testing.T) {
	dir := t.TempDir()
	seeds := uint64(300)
	if testing.Short() {
		seeds = 30
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 15))
		b := []byte(genTranscript(r, 5+r.IntN(40)))
		if seed%2 == 1 {
			// Corrupted bytes: keys and values no writer makes.
			for range r.IntN(20) {
				b[r.IntN(len(b))] = byte(r.IntN(256))
			}
		}
		path := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", seed))
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		checkPrefilters(t, path)
	}
}

// TestPrefiltersAcrossFiles: entries of several transcripts on stdin
// without cc_source come as one stream, with no end of file between them:
// the filter's pending calls and seen ids span the files. The facts are
// still those of every line decoded. (Each part gets its own ids, as real
// transcripts have: the generator numbers its calls from 1 in each.)
func TestPrefiltersAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	for seed := range uint64(10) {
		r := rand.New(rand.NewPCG(seed, 38))
		var parts []string
		for k := range 2 + r.IntN(4) {
			parts = append(parts, strings.ReplaceAll(genTranscript(r, 5+r.IntN(30)), "toolu_", fmt.Sprintf("toolu_%d_", k)))
		}
		path := filepath.Join(dir, fmt.Sprintf("cat%d.jsonl", seed))
		if err := os.WriteFile(path, []byte(strings.Join(parts, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		checkPrefilters(t, path)
	}
}

// FuzzPrefilters: the differential check over transcripts generated from
// the fuzzer's seed, and over the fuzzer's own bytes as a transcript.
func FuzzPrefilters(f *testing.F) {
	f.Add(uint64(1), []byte(resultLine("toolu_1", "", "")+"\n"+useBash+"\n"))
	f.Add(uint64(2), []byte(useRead+"\n"+resultLine(`toolu_\u0032`, `,"is_error":true`, "")+"\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, seed uint64, raw []byte) {
		r := rand.New(rand.NewPCG(seed, 15))
		path := filepath.Join(dir, "gen.jsonl")
		if err := os.WriteFile(path, []byte(genTranscript(r, 1+r.IntN(30))), 0o644); err != nil {
			t.Fatal(err)
		}
		checkPrefilters(t, path)
		path = filepath.Join(dir, "raw.jsonl")
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		checkPrefilters(t, path)
	})
}

// The reader hands on the same lines with Tools as without, each walked
// once; Filter's refusals are counted as prefiltered.
func TestReaderToolsAndFilter(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 15))
	in := genTranscript(r, 400)
	type got struct {
		n      []int
		header []string
		d      transcript.Diagnostics
	}
	read := func(opts transcript.Options) got {
		var g got
		rd := transcript.NewReader(strings.NewReader(in), opts)
		err := rd.Each(func(l *transcript.Line) error {
			g.n = append(g.n, l.Number)
			g.header = append(g.header, fmt.Sprintf("%q %q %q", l.Header.Type, l.Header.UUID, l.Header.SessionID))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		g.d = rd.Diagnostics()
		return g
	}
	all := func([]byte) bool { return true }
	plain, lazy := read(transcript.Options{Types: []string{"user", "assistant"}}), read(transcript.Options{Types: []string{"user", "assistant"}, Tools: all})
	if fmt.Sprint(plain) != fmt.Sprint(lazy) {
		t.Errorf("with Tools:\n%v\nwithout:\n%v", lazy, plain)
	}
	none := read(transcript.Options{Types: []string{"user", "assistant"}, Filter: func([]byte) bool { return false }})
	if len(none.n) != 0 || none.d.Prefiltered+none.d.Malformed+none.d.Blank != none.d.Lines {
		t.Errorf("a filter refusing every line: %d handed on, diagnostics %+v", len(none.n), none.d)
	}
}

func TestIndexNeedle(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		s := make([]byte, r.IntN(80))
		for i := range s {
			s[i] = "ab\"_"[r.IntN(4)]
		}
		n := []byte("ab\"_ab"[r.IntN(3):][:2+r.IntN(3)])
		if got, want := indexNeedle(s, n), bytes.Index(s, n); got != want {
			t.Fatalf("indexNeedle(%q, %q) = %d, want %d", s, n, got, want)
		}
		if got, want := countNeedle(s, n), bytes.Count(s, n); got != want {
			t.Fatalf("countNeedle(%q, %q) = %d, want %d", s, n, got, want)
		}
	}
}

// TestBlockIDs: where blockIDs finds a line's tool_use ids, they are
// those of the decoded entry's tool_use blocks, in order; it gives up on
// what it cannot be sure of.
func TestBlockIDs(t *testing.T) {
	for _, tt := range []struct {
		line string
		ok   bool
	}{
		{`{"message":{"content":[{"id":"t1","input":{"id":"x","type":"tool_use"},"name":"Bash","type":"tool_use"},{"type":"text","text":"tool_use"}]},"type":"assistant"}`, true},
		{`{"type":"assistant","message":{"content":"\"tool_use\""}}`, true},
		{`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1"},{"id":"t2","type":"tool_use"}]}}`, true},
		{`{"type":"assistant","message":{"content":[{"type":"tool_use","input":{}}]}}`, false},
		{`{"type":"assistant","message":{"content":[{"Type":"tool_use","id":"t1"}]}}`, false},
		{`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","id":"t2"}]}}`, false},
		{`{"type":"assistant","Message":{"content":[{"type":"tool_use","id":"t1"}]}}`, false},
		{`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t\u0031"}]}}`, false},
		{`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1"}]},"message":{}}`, false},
		{`{"type":"assistant","message":{"content":[{"type":"tool_use","id":1}]}}`, false},
		{`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1"}]}} x`, false},
		{`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1"}`, false},
	} {
		ids, ok := blockIDs([]byte(tt.line))
		if ok != tt.ok {
			t.Errorf("%s: ok %v, want %v", tt.line, ok, tt.ok)
			continue
		}
		if ok {
			checkBlockIDs(t, tt.line, ids)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	found := 0
	for range 3000 {
		for _, l := range strings.Split(genTranscript(r, 10), "\n") {
			if !strings.Contains(l, `"tool_use"`) {
				continue
			}
			b := []byte(l)
			if r.IntN(3) == 0 {
				b[r.IntN(len(b))] = byte(r.IntN(256))
			}
			if ids, ok := blockIDs(b); ok {
				found++
				checkBlockIDs(t, string(b), ids)
			}
		}
	}
	if found < 1000 {
		t.Fatalf("blockIDs found the ids of %d generated lines only", found)
	}
}

// checkBlockIDs is blockIDs' slow twin: the decoded entry's tool_use ids.
func checkBlockIDs(t *testing.T, line string, ids [][]byte) {
	t.Helper()
	e, err := transcript.Decode([]byte(line))
	if err != nil {
		t.Errorf("%s: blockIDs read a line that does not decode: %v", line, err)
		return
	}
	var want []string
	if e.Type == "assistant" && e.Message != nil {
		for _, b := range e.Message.Content {
			if b.Type == transcript.BlockToolUse {
				want = append(want, b.ID)
			}
		}
	}
	got := make([]string, len(ids))
	for i, id := range ids {
		got[i] = string(id)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s: blockIDs %q, decoded %q", line, got, want)
	}
}

// TestIndexFold: indexFold finds what a case-folded bytes.Index finds,
// whatever pair of the key it scans by.
func TestIndexFold(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 38))
	keys := []string{"is_error", "interrupted", "tooldenialkind", "permissiondecision", `decision"`, "agentid", "isapierrormessage", "ab"}
	for range 3000 {
		key := keys[r.IntN(len(keys))]
		var b []byte
		for range r.IntN(80) {
			switch r.IntN(6) {
			case 0:
				k := []byte(key)
				for i := range k {
					if r.IntN(3) == 0 && 'a' <= k[i] && k[i] <= 'z' {
						k[i] -= 'a' - 'A'
					}
				}
				b = append(b, k...)
			case 1:
				b = append(b, key[:r.IntN(len(key))]...)
			default:
				b = append(b, "aeiou_\"dsnt"[r.IntN(11)])
			}
		}
		want := bytes.Index(bytes.ToLower(b), []byte(key))
		if got := indexFold(b, key); got != want {
			t.Fatalf("indexFold(%q, %q) = %d, want %d", b, key, got, want)
		}
	}
}

// TestHookLine: hookLine's one scan for "hook" answers as the needles it
// stands for do, each by its own scan (failureNeedles but api_error, and
// hookAttachmentLine).
func TestHookLine(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 39))
	parts := []string{`"blocked_by_hook"`, `"stop_hook_summary"`, `Stop hook feedback:`, `"hook_`, `hook`, `"hook_blocking_error"`,
		`"hook_stopped_continuation"`, `"hook_non_blocking_error"`, `"hook_error_during_execution"`, `think`, `hack`}
	for range 5000 {
		var b []byte
		for range r.IntN(12) {
			if r.IntN(2) == 0 {
				p := parts[r.IntN(len(parts))]
				if r.IntN(3) == 0 { // a part cut short
					p = p[:r.IntN(len(p)+1)]
				}
				b = append(b, p...)
			} else {
				b = append(b, "hok_\" bSst"[r.IntN(10)])
			}
		}
		want := containsAnyFast(b, failureNeedles[1:]) || hookAttachmentLine(b)
		if got := hookLine(b); got != want {
			t.Fatalf("hookLine(%q) = %v, want %v", b, got, want)
		}
	}
}

// TestAcceptedOnly: acceptedOnly's one scan for "decision" answers as
// its twin's scans for each key do.
func TestAcceptedOnly(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 40))
	parts := []string{`"permissionDecision":{"decision":"allow"`, `"permissionDecision":{"decision":"reject"`, `"permissiondecision":{"decision":"x"`,
		`"PermissionDecision":{"Decision":"allow"`, `\"permissionDecision":{"decision":"a"`, `permissionDecision`, `decision"`, `Decision`,
		`"decision":"allow"`, `permission`, `"permissionDecision":{"decision":"a\"`}
	for range 5000 {
		var b []byte
		for range r.IntN(8) {
			if r.IntN(2) == 0 {
				p := parts[r.IntN(len(parts))]
				if r.IntN(4) == 0 {
					p = p[r.IntN(len(p)+1):]
				}
				b = append(b, p...)
			} else {
				b = append(b, "\"{:\\ap"[r.IntN(6)])
			}
		}
		if got, want := acceptedOnly(b), acceptedOnlySlow(b); got != want {
			t.Fatalf("acceptedOnly(%q) = %v, want %v", b, got, want)
		}
	}
}

// TestToolNeedles: toolNeedles' one scan answers as transcript.Contains
// of toolUseNeedle and countNeedle of toolResultNeedle do.
func TestToolNeedles(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 41))
	parts := []string{`"tool_use"`, `"tool_result"`, `"tool_use_id"`, `"tool_`, `tool_result"`, `"tool_result`, `_use"`}
	for range 5000 {
		var b []byte
		for range r.IntN(10) {
			if r.IntN(2) == 0 {
				b = append(b, parts[r.IntN(len(parts))]...)
			} else {
				b = append(b, "\"_tlur"[r.IntN(6)])
			}
		}
		uses, results := toolNeedles(b)
		if wu, wr := transcript.Contains(b, toolUseNeedle), countNeedle(b, toolResultNeedle); uses != wu || results != wr {
			t.Fatalf("toolNeedles(%q) = %v, %d, want %v, %d", b, uses, results, wu, wr)
		}
	}
}
