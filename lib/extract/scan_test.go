package extract

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
)

func TestScanUsageLine(t *testing.T) {
	line := `{"parentUuid":"p","message":{"id":"msg_1","type":"message","model":"m\u00e9","content":[{"type":"text","text":"a \"quoted\" } ] { [ \\"}],"usage":{"input_tokens":12,"cache_creation_input_tokens":3,"cache_read_input_tokens":4.0,"output_tokens":5,"server_tool_use":{"x":[1,{"y":null}]},"iterations":[]}},"requestId":"req_1","type":"assistant","uuid":"u1","timestamp":"2026-05-01T10:00:00.000Z","sessionId":"s1","cwd":"/a","isApiErrorMessage":false}`
	var l usageLine
	if err := scanUsageLine([]byte(line), &l); err != nil {
		t.Fatal(err)
	}
	got := strings.Join([]string{string(l.typ), string(l.uuid), string(l.msgID), string(l.model), string(l.reqID), string(l.sid), string(l.cwd), string(l.ts)}, "|")
	if got != "assistant|u1|msg_1|mé|req_1|s1|/a|2026-05-01T10:00:00.000Z" {
		t.Errorf("fields: %s", got)
	}
	if l.u != (TokenUsage{InputTokens: 12, OutputTokens: 5, CacheCreationInputTokens: 3, CacheReadInputTokens: 4}) || !l.hasUsage || l.apiError {
		t.Errorf("usage: %+v %v %v", l.u, l.hasUsage, l.apiError)
	}
	for _, bad := range []string{
		`{"type":"assistant"`, `{"type":"assistant",}x`, `{"message":{"usage":{"input_tokens":1}}`,
		`{"a":"unterminated}`, `[1]`, ``, `{"a":1} trailing`, `{"a" 1}`,
	} {
		if err := scanUsageLine([]byte(bad), &l); !errors.Is(err, errWalk) {
			t.Errorf("scanUsageLine(%q) = %v, want a malformed-record error", bad, err)
		}
	}
	// Fields of the wrong type read as empty, and the rest still reads.
	if err := scanUsageLine([]byte(`{"type":1,"message":{"id":null,"usage":{"input_tokens":"7","output_tokens":2}}}`), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.typ) != 0 || l.u.InputTokens != 0 || l.u.OutputTokens != 2 || !l.badCount {
		t.Errorf("mismatched types: %+v", l)
	}
	// null is no count, not a count of the wrong type.
	if err := scanUsageLine([]byte(`{"type":"assistant","message":{"usage":{"input_tokens":null,"output_tokens":2}}}`), &l); err != nil || l.badCount {
		t.Errorf("null count: %v %+v", err, l)
	}
}

// TestMismatchWarnings: a fact built on a field of the wrong type is
// named on the warning channel, on the typed path and the usage fast path.
func TestMismatchWarnings(t *testing.T) {
	p := t.TempDir() + "/s.jsonl"
	in := `{"type":"assistant","uuid":"a1","message":{"id":"m1","model":"x","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":"7","output_tokens":2}}}` + "\n" +
		`{"type":"user","uuid":"u1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x","is_error":"yes"}]}}` + "\n"
	if err := os.WriteFile(p, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ kind, want string }{
		{"usage", p + ":1: fields of an unexpected type read as empty: message.usage"},
		{"texts", p + ":1: fields of an unexpected type read as empty: message.usage.input_tokens"},
		{"tools", p + ":2: fields of an unexpected type read as empty: message.content[0].is_error"},
	} {
		var warns []string
		x, err := New(Options{Kind: tt.kind, Warn: func(m string) { warns = append(warns, m) }}, func(any) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if err := x.ReadTranscript(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
		if len(warns) != 1 || warns[0] != tt.want {
			t.Errorf("%s: warnings %q, want [%q]", tt.kind, warns, tt.want)
		}
	}
}

func TestEachLineWith(t *testing.T) {
	long := strings.Repeat("x", 3*scanChunk)
	in := "a\n" + `{"type":"assistant","n":1}` + "\r\nb " + long + "\n" + long + `"type":"assistant"` + long + "\nc\n" + `"type":"assistant" last`
	want := []struct {
		line    string
		n       int
		partial bool
	}{
		{`{"type":"assistant","n":1}`, 2, false},
		{long + `"type":"assistant"` + long, 4, false},
		{`"type":"assistant" last`, 6, true},
	}
	// A reader that can be read back drops the head of long lines; one
	// that cannot (a decompressor) holds them.
	for _, keep := range []int{keepLimit, 100} {
		for _, rd := range []io.Reader{strings.NewReader(in), iotest.HalfReader(strings.NewReader(in))} {
			var got []string
			var nums []int
			var parts []bool
			_, err := findLines(rd, assistantType, nil, keep, func(line []byte, n int, partial bool) error {
				got = append(got, string(line))
				nums = append(nums, n)
				parts = append(parts, partial)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("got %d lines, want %d", len(got), len(want))
			}
			for i, w := range want {
				if got[i] != w.line || nums[i] != w.n || parts[i] != w.partial {
					t.Errorf("line %d: got (%.40q, %d, %v), want (%.40q, %d, %v)", i, got[i], nums[i], parts[i], w.line, w.n, w.partial)
				}
			}
		}
	}
}

// naiveLines is the obvious implementation eachLineWith must agree with.
func naiveLines(in, pat []byte) (lines []string, nums []int) {
	parts := bytes.Split(in, []byte("\n"))
	for i, p := range parts {
		if i == len(parts)-1 && len(p) == 0 {
			break
		}
		if bytes.Contains(p, pat) {
			lines = append(lines, string(bytes.TrimSuffix(p, []byte("\r"))))
			nums = append(nums, i+1)
		}
	}
	return lines, nums
}
