package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/transcript"
	"github.com/ccpipe/ccpipe/lib/usage"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

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
		{"usage", p + ":1: fields of an unexpected type read as empty: message.usage.input_tokens"},
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

// usageOnce runs the usage kind over path and returns its facts, its
// warnings and its error.
func usageOnce(t *testing.T, path string, sum string) ([]any, []string, error) {
	t.Helper()
	var facts []any
	var warns []string
	x, err := New(Options{Kind: "usage", Sum: sum, Warn: func(m string) { warns = append(warns, m) }}, func(v any) error {
		facts = append(facts, v)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = x.ReadTranscript(context.Background(), path)
	if cerr := x.Close(); err == nil {
		err = cerr
	}
	return facts, warns, err
}

func assistantLine(i int, counts string) string {
	return fmt.Sprintf(`{"type":"assistant","uuid":"a%d","sessionId":"s","message":{"id":"m%d","model":"x","usage":{%s}}}`, i, i, counts) + "\n"
}

// TestUsageTruncatedCompressed: a .gz or .zst cut short fails the read
// (issue 13.4), where it used to give partial totals and exit 0.
func TestUsageTruncatedCompressed(t *testing.T) {
	var plain bytes.Buffer
	for i := range 20000 {
		plain.WriteString(assistantLine(i, `"input_tokens":1,"output_tokens":2`))
	}
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain.Bytes())
	zw.Close()
	zs, _ := zstd.NewWriter(nil)
	zst := zs.EncodeAll(plain.Bytes(), nil)
	for name, data := range map[string][]byte{"s.jsonl.gz": gz.Bytes(), "s.jsonl.zst": zst} {
		whole := filepath.Join(dir, "whole-"+name)
		cut := filepath.Join(dir, "cut-"+name)
		if err := os.WriteFile(whole, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cut, data[:len(data)*2/3], 0o644); err != nil {
			t.Fatal(err)
		}
		if facts, _, err := usageOnce(t, whole, ""); err != nil || len(facts) != 20000 {
			t.Errorf("%s whole: %d facts, %v", name, len(facts), err)
		}
		_, warns, err := usageOnce(t, cut, "")
		if !errors.Is(err, ErrUnreadable) || len(warns) == 0 || !strings.Contains(warns[0], "unexpected EOF") {
			t.Errorf("%s cut: err %v, warnings %q; want the read to fail", name, err, warns)
		}
	}
}

// TestUsageLongLinesCompressed: in a .zst, lines longer than the read
// buffer (the pattern far in, or not at all) are read back by a second
// decompression and counted as in the plain file.
func TestUsageLongLinesCompressed(t *testing.T) {
	var plain bytes.Buffer
	pad := strings.Repeat("x", usage.ScanBuffer+100)
	for i := range 6 {
		switch i % 3 {
		case 0:
			plain.WriteString(assistantLine(i, `"input_tokens":1,"output_tokens":2`))
		case 1:
			plain.WriteString(`{"pad":"` + pad + `","type":"assistant","uuid":"a` + fmt.Sprint(i) + `","sessionId":"s","message":{"id":"m` + fmt.Sprint(i) + `","model":"x","usage":{"input_tokens":5}}}` + "\n")
		case 2:
			plain.WriteString(`{"type":"user","pad":"` + pad + `"}` + "\n")
		}
	}
	dir := t.TempDir()
	zs, _ := zstd.NewWriter(nil)
	paths := map[string][]byte{"s.jsonl": plain.Bytes(), "s.jsonl.zst": zs.EncodeAll(plain.Bytes(), nil)}
	var want []string
	for _, name := range []string{"s.jsonl", "s.jsonl.zst"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, paths[name], 0o644); err != nil {
			t.Fatal(err)
		}
		facts, warns, err := usageOnce(t, p, "")
		if err != nil || len(warns) > 0 || len(facts) != 4 {
			t.Fatalf("%s: %d facts %q, warnings %q, %v", name, len(facts), facts, warns, err)
		}
		var got []string
		for _, f := range facts {
			b, _ := json.Marshal(f)
			got = append(got, strings.ReplaceAll(string(b), name, ""))
		}
		if want == nil {
			want = got
		} else if !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

// TestUsageNumbersOutOfRange (issue 13.5): a count that is not an int64
// reads 0 on both paths and the warning names the field; sums that would
// overflow are held at the bound with a warning.
func TestUsageNumbersOutOfRange(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	in := assistantLine(1, `"input_tokens":1e999,"output_tokens":1.5,"cache_read_input_tokens":9223372036854775808,"cache_creation_input_tokens":-7`) +
		assistantLine(2, `"input_tokens":9223372036854775807,"output_tokens":1`) +
		assistantLine(3, `"input_tokens":9223372036854775807,"output_tokens":1`)
	if err := os.WriteFile(p, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	facts, warns, err := usageOnce(t, p, "")
	if err != nil || len(facts) != 3 {
		t.Fatalf("%d facts, %v", len(facts), err)
	}
	u := facts[0].(Usage)
	if u.InputTokens != 0 || u.OutputTokens != 0 || u.CacheReadInputTokens != 0 || u.CacheCreationInputTokens != -7 {
		t.Errorf("fast path read %+v", u)
	}
	want := p + ":1: " + mismatchNote + "message.usage.cache_read_input_tokens, message.usage.input_tokens, message.usage.output_tokens"
	if len(warns) != 1 || warns[0] != want {
		t.Errorf("warnings %q, want %q", warns, want)
	}
	// The decode path (entries piped in) reads and names the same.
	e, err := transcript.Decode([]byte(strings.Split(in, "\n")[0]))
	if err != nil {
		t.Fatal(err)
	}
	slow, _ := UsageMessage(&Origin{}, e)
	if slow.Tokens != (usage.Tokens{CacheCreationInputTokens: -7}) {
		t.Errorf("decode path read %+v", slow.Tokens)
	}
	if got := Mismatches(e); got != mismatchNote+"message.usage.cache_read_input_tokens, message.usage.input_tokens, message.usage.output_tokens" {
		t.Errorf("decode path names %q", got)
	}
	facts, warns, err = usageOnce(t, p, "session")
	if err != nil || len(facts) != 1 {
		t.Fatalf("%d sums, %v", len(facts), err)
	}
	s := facts[0].(*usage.Sum)
	if s.InputTokens != math.MaxInt64 || s.TotalTokens != math.MaxInt64 || s.OutputTokens != 2 || s.CacheCreationInputTokens != 0 {
		t.Errorf("sum %+v", s)
	}
	// The negative count is flagged, not summed; message 2's own total
	// overflows; message 3 takes the input sum over.
	if len(warns) != 4 || !strings.Contains(warns[1], "usage.cache_creation_input_tokens -7 is negative, not summed") ||
		!strings.Contains(warns[2], `usage --sum session "s": total_tokens overflows a 64-bit integer`) ||
		!strings.Contains(warns[3], "input_tokens overflows") {
		t.Errorf("warnings %q", warns)
	}
}

// TestConversationMessageOfAnotherType: a user record whose message is
// not an object is named as a mismatch and skipped; it used to crash the
// conversation kind.
func TestConversationMessageOfAnotherType(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(`{"type":"user","uuid":"u","message":"hello"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var warns []string
	x, err := New(Options{Kind: "conversation", Warn: func(m string) { warns = append(warns, m) }}, func(any) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := x.ReadTranscript(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.HasSuffix(warns[0], mismatchNote+"message") {
		t.Errorf("warnings %q", warns)
	}
}

// TestJoinerIgnoresOtherTools: a kind that reports only some tools keeps
// no state for the others' results (ids only, until the result comes),
// and still joins its own calls, results before calls included.
func TestJoinerIgnoresOtherTools(t *testing.T) {
	var got []string
	j := newJoiner(&copies{}, func(c *call) error {
		r := "<none>"
		if c.res != nil {
			r = c.res.text
		}
		got = append(got, c.name+":"+r)
		return nil
	}, func(name string) bool { return name == "Bash" })
	for _, line := range []string{
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"b0","content":"early"}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"r1","name":"Read","input":{}},{"type":"tool_use","id":"b1","name":"Bash","input":{}},{"type":"tool_use","id":"b0","name":"Bash","input":{}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"r1","content":"` + strings.Repeat("x", 1000) + `"}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"b1","content":"out"}]}}`,
	} {
		e, err := transcript.Decode([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if err := j.entry(&Origin{}, e); err != nil {
			t.Fatal(err)
		}
	}
	if len(j.early) != 0 || len(j.ignored) != 0 || len(j.byID) != 0 {
		t.Errorf("state left: early %d, ignored %d, pending %d", len(j.early), len(j.ignored), len(j.byID))
	}
	if strings.Join(got, ",") != "Bash:out,Bash:early" {
		t.Errorf("joined %q", got)
	}
}
