package usage

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

func TestScanUsageLine(t *testing.T) {
	line := `{"parentUuid":"p","message":{"id":"msg_1","type":"message","model":"m\u00e9","content":[{"type":"text","text":"a \"quoted\" } ] { [ \\"}],"usage":{"input_tokens":12,"cache_creation_input_tokens":3,"cache_read_input_tokens":4,"output_tokens":5,"server_tool_use":{"x":[1,{"y":null}]},"iterations":[]}},"requestId":"req_1","type":"assistant","uuid":"u1","timestamp":"2026-05-01T10:00:00.000Z","sessionId":"s1","cwd":"/a","isApiErrorMessage":false}`
	var l Line
	if err := ParseLine([]byte(line), &l); err != nil {
		t.Fatal(err)
	}
	got := strings.Join([]string{string(l.Type), string(l.UUID), string(l.MessageID), string(l.Model), string(l.RequestID), string(l.SessionID), string(l.Cwd), string(l.Timestamp)}, "|")
	if got != "assistant|u1|msg_1|mé|req_1|s1|/a|2026-05-01T10:00:00.000Z" {
		t.Errorf("fields: %s", got)
	}
	if l.Tokens != (Tokens{InputTokens: 12, OutputTokens: 5, CacheCreationInputTokens: 3, CacheReadInputTokens: 4}) || !l.HasUsage || l.APIError {
		t.Errorf("usage: %+v %v %v", l.Tokens, l.HasUsage, l.APIError)
	}
	for _, bad := range []string{
		`{"type":"assistant"`, `{"type":"assistant",}x`, `{"message":{"usage":{"input_tokens":1}}`,
		`{"a":"unterminated}`, `[1]`, ``, `{"a":1} trailing`, `{"a" 1}`,
	} {
		if err := ParseLine([]byte(bad), &l); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseLine(%q) = %v, want a malformed-record error", bad, err)
		}
	}
	// Fields of the wrong type read as empty, and the rest still reads.
	if err := ParseLine([]byte(`{"type":1,"message":{"id":null,"usage":{"input_tokens":"7","output_tokens":2}}}`), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Type) != 0 || l.Tokens.InputTokens != 0 || l.Tokens.OutputTokens != 2 || strings.Join(l.Bad, ",") != "message.usage.input_tokens" {
		t.Errorf("mismatched types: %+v", l)
	}
	// null is no count, not a count of the wrong type.
	if err := ParseLine([]byte(`{"type":"assistant","message":{"usage":{"input_tokens":null,"output_tokens":2}}}`), &l); err != nil || len(l.Bad) != 0 {
		t.Errorf("null count: %v %+v", err, l)
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
	// A reader that can be read back reads a line longer than the buffer
	// back; one that cannot (a decompressor) holds it.
	for _, size := range []int{scanChunk, 100} {
		for _, rd := range []io.Reader{strings.NewReader(in), iotest.HalfReader(strings.NewReader(in))} {
			var got []string
			var nums []int
			var parts []bool
			_, err := eachLineWith(rd, assistantNeedle, make([]byte, size), func(line []byte, n int, partial bool) error {
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

// TestUsageFileShrinks: a plain file cut below what was read fails the
// read instead of ending it quietly.
func TestUsageFileShrinks(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	var b bytes.Buffer
	for i := 0; b.Len() < 3*scanChunk; i++ {
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"a%d","sessionId":"s","message":{"id":"m%d","model":"x","usage":{"input_tokens":1}}}`+"\n", i, i)
	}
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	_, err = eachLineWith(f, assistantNeedle, nil, func([]byte, int, bool) error {
		if n++; n == 1 {
			return os.Truncate(p, 100)
		}
		return nil
	})
	if !errors.Is(err, errShrank) {
		t.Errorf("read of a shrinking file: %v after %d lines", err, n)
	}
}
