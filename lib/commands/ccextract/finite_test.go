package ccextract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A finite but huge --prices row overflows a message's cost: the message
// is flagged (cost_error, a warning), every record still comes out, and
// a --sum keeps its cost_usd (issue 31 #14: output stopped at
// "json: unsupported value: +Inf", and --sum dropped cost_usd).
func TestHugePriceIsFlagged(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../../testdata/corpus/claude/projects/-home-dev-projects-alpha/c0a1f001-0000-4000-8000-000000000001.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(dir, "c0a1f001-0000-4000-8000-000000000001.jsonl")
	os.WriteFile(tr, []byte(strings.ReplaceAll(string(data), `"input_tokens":1500`, `"input_tokens":5000000`)), 0o644)
	prices := filepath.Join(dir, "prices.yaml")
	os.WriteFile(prices, []byte("- {name: claude-opus-5-5, inputPerMtok: 1.7e308, outputPerMtok: 1, cacheReadPerMtok: 1, cacheWritePerMtok: 1}\n"), 0o644)
	var out, errb strings.Builder
	code := Run([]string{"usage", "--cost", "--prices", prices, tr}, nil, &out, &errb)
	if code != 0 || strings.Count(out.String(), "\n") != 10 || strings.Contains(out.String(), "Inf") {
		t.Fatalf("exit %d, %d records\n%s", code, strings.Count(out.String(), "\n"), errb.String())
	}
	if !strings.Contains(out.String(), `"cost_error":"the cost overflows`) || !strings.Contains(errb.String(), "the cost overflows") {
		t.Errorf("the overflowing message is not flagged:\n%s", errb.String())
	}
	out.Reset()
	errb.Reset()
	code = Run([]string{"usage", "--cost", "--prices", prices, "--sum", "session", tr}, nil, &out, &errb)
	if code != 0 || !strings.Contains(out.String(), `"cost_usd":`) || !strings.Contains(out.String(), `"unpriced_messages":1`) {
		t.Errorf("--sum: exit %d %s %s", code, out.String(), errb.String())
	}
}

// A negative token count is flagged for its message and never summed
// (issue 31 #15: the sums added it while --cost rejected it).
func TestNegativeCountNotSummed(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/corpus/claude/projects/-home-dev-projects-alpha/c0a1f001-0000-4000-8000-000000000001.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(t.TempDir(), "c0a1f001-0000-4000-8000-000000000001.jsonl")
	os.WriteFile(tr, []byte(strings.ReplaceAll(string(data), `"output_tokens":120`, `"output_tokens":-120`)), 0o644) // every copy of the message
	for _, sum := range []string{"session", "block"} {
		var out, errb strings.Builder
		code := Run([]string{"usage", "--sum", sum, tr}, nil, &out, &errb)
		if code != 0 || !strings.Contains(out.String(), `"output_tokens":172`) || !strings.Contains(out.String(), `"messages":10`) {
			t.Errorf("--sum %s: exit %d %s", sum, code, out.String())
		}
		if !strings.Contains(errb.String(), "usage.output_tokens -120 is negative, not summed") {
			t.Errorf("--sum %s: stderr %q", sum, errb.String())
		}
	}
}

// A usage that is not an object is named for a path as for stdin (issue
// 31 #15: a path dropped the message without a word).
func TestUsageNotObjectWarnsForPath(t *testing.T) {
	line := `{"type":"assistant","uuid":"a1","sessionId":"s","timestamp":"2026-01-01T00:00:00.000Z","message":{"id":"m1","model":"claude-opus-5-5","role":"assistant","content":[],"usage":"lots"}}` + "\n"
	p := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(p, []byte(line), 0o644)
	var out, errb, sout, serr strings.Builder
	Run([]string{"usage", p}, nil, &out, &errb)
	Run([]string{"usage"}, strings.NewReader(line), &sout, &serr)
	want := ":1: fields of an unexpected type read as empty: message.usage"
	if !strings.Contains(errb.String(), p+want) || !strings.Contains(serr.String(), "<stdin>"+want) || out.String() != sout.String() {
		t.Errorf("path: %q %q\nstdin: %q %q", out.String(), errb.String(), sout.String(), serr.String())
	}
}
