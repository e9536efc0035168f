package extract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// encodingJSON writes v as ndjson.Writer does through encoding/json (a
// fact's slow twin: its type without AppendJSON).
func encodingJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := ndjson.MarshalReflect(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// toolPlain is Tool without its AppendJSON.
type toolPlain Tool

// FuzzToolAppendJSON keeps Tool's AppendJSON byte-identical to
// encoding/json's writing of the same Tool, through ndjson.Marshal (as
// cli.Output and the kind cache write facts), with every pointer nil and
// set.
func FuzzToolAppendJSON(f *testing.F) {
	f.Add("s", "toolu_1", "Bash", []byte(`{"command":"ls -l","description":"list"}`), "out\n\u2028<&>", true, "hook", "\xffbad\x01", byte(0))
	f.Add("", "", "", []byte(` { "a" : [ 1 , "x y" ] } `), "", false, "", "", byte(0xff))
	f.Add("a\"b", "\\", "\t", []byte(`null`), "\xe2\x80\xa9", false, "user", "r", byte(0x55))
	f.Add("s", "i", "n", []byte(nil), "r", true, "", "", byte(0xaa))
	f.Fuzz(func(t *testing.T, s, id, name string, input []byte, res string, isErr bool, by, reason string, set byte) {
		if input != nil && !json.Valid(input) {
			return // a decode checked every input
		}
		p := func(bit int, v string) *string {
			if set&(1<<bit) == 0 {
				return nil
			}
			return &v
		}
		tool := Tool{Base: Base{SessionID: p(0, s), AgentID: p(1, id), UUID: p(2, name), Timestamp: p(3, res), Cwd: "c", Path: "p"},
			ToolUseID: id, Name: name, Input: input, Result: p(4, res), IsError: isErr, Interrupted: !isErr,
			PersistedOutputPath: p(5, reason), PersistedOutputLocalPath: p(6, by), ResultUUID: p(7, s), ResultTimestamp: p(0, name),
			Response: json.RawMessage(`{"x":1}`)}
		if by != "" {
			tool.Denied = &Denial{By: by, Kind: p(5, s), Reason: reason}
		}
		got, err := ndjson.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		if want := encodingJSON(t, toolPlain(tool)); !bytes.Equal(got, want) {
			t.Fatalf("AppendJSON:\n%s\nencoding/json:\n%s", got, want)
		}
	})
}

// quotedForms are JSON strings a transcript may hold for text: as
// encoding/json writes it, as JSON.stringify does (U+2028 raw), and with
// its letters escaped as \u00xx (no writer's form).
func quotedForms(text string) [][]byte {
	u := []byte{'"'}
	for _, c := range []byte(jsonscan.AppendEscaped(nil, text)) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			u = append(u, fmt.Sprintf(`\u%04X`, c)...)
		} else {
			u = append(u, c)
		}
	}
	return [][]byte{ndjson.AppendString(nil, text), jsonscan.AppendString(nil, text), append(u, '"')}
}

// factLines runs the lines through a kind as cc-extract does (each line
// decoded by Extractor.Decode, Options.JSONOnly) and as the slow twin
// does (transcript.Decode, the facts as Go values written by
// encoding/json), and returns both outputs.
func factLines(t *testing.T, kind string, lines [][]byte) (fast, slow string) {
	t.Helper()
	for _, jsonOnly := range []bool{true, false} {
		var out strings.Builder
		x, err := New(Options{Kind: kind, JSONOnly: jsonOnly, Warn: func(string) {}}, func(v any) error {
			var line []byte
			if tool, ok := v.(Tool); ok && !jsonOnly {
				line = encodingJSON(t, toolPlain(tool))
			} else {
				var err error
				if line, err = ndjson.Marshal(v); err != nil {
					return err
				}
			}
			out.Write(line)
			out.WriteByte('\n')
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			decode := x.Decode
			if !jsonOnly {
				decode = transcript.Decode
			}
			e, err := decode(l)
			if err != nil {
				t.Fatalf("%v: %s", err, l)
			}
			if err := x.Entry(Origin{}, e); err != nil {
				t.Fatal(err)
			}
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
		if jsonOnly {
			fast = out.String()
		} else {
			slow = out.String()
		}
	}
	return fast, slow
}

// FuzzResultTextJSON keeps the facts of a tool result whose text stays
// the JSON string it was read as (transcript.Block.TextJSON; the checks
// on it by result.hasPrefix; Tool's copy of it when ndjson.Canonical)
// byte-identical to the facts built from the decoded text, for the tools,
// shell and files kinds.
func FuzzResultTextJSON(f *testing.F) {
	for _, s := range []string{"[Request interrupted by user]", "[Request interrupted by user for tool use]", "[Req\nuest",
		" \n <persisted-output>\nOutput too large (2KB). Full output saved to: /a/tool-results/x.txt\n\nPreview:\nx",
		"<persisted-output>Full output saved to: /b\n", "Exit code 2\nboom", "(Bash completed with no output)",
		"ok\u2028\u2029 \x01\x7f <&> é", "\xff\xfe", "PreToolUse:Bash hook error: no", ""} {
		f.Add(s, false, "", "")
		f.Add(s, true, "user-rejected", `{"decision":"reject","source":"hook"}`)
	}
	f.Fuzz(func(t *testing.T, text string, isErr bool, denialKind, decision string) {
		if decision != "" && !json.Valid([]byte(decision)) {
			decision = string(ndjson.AppendString(nil, decision))
		}
		for _, q := range quotedForms(text) {
			if !json.Valid(q) {
				continue
			}
			use := `{"type":"assistant","uuid":"a","sessionId":"s","message":{"content":[` +
				`{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}},` +
				`{"type":"tool_use","id":"t2","name":"Write","input":{"file_path":"/f"}}]}}`
			res := fmt.Sprintf(`{"type":"user","uuid":"b","sessionId":"s","message":{"content":[`+
				`{"type":"tool_result","tool_use_id":"t1","content":%s,"is_error":%v},`+
				`{"type":"tool_result","tool_use_id":"t2","content":%s}]},"toolDenialKind":%s%s}`,
				q, isErr, q, ndjson.AppendString(nil, denialKind), map[bool]string{true: `,"permissionDecision":` + decision}[decision != ""])
			for _, kind := range []string{"tools", "shell", "files"} {
				if fast, slow := factLines(t, kind, [][]byte{[]byte(use), []byte(res)}); fast != slow {
					t.Fatalf("%s, text %s:\nTextJSON:\n%s\ndecoded:\n%s", kind, q, fast, slow)
				}
			}
		}
	})
}
