package extract

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/ccpipe/ccpipe/lib/ndjson"
)

// encodingJSON writes v as ndjson.Writer does through encoding/json (a
// fact's slow twin: its type without AppendJSON).
func encodingJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
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
