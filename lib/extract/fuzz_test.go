package extract

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/transcript"
	"github.com/ccpipe/ccpipe/lib/usage"
)

func FuzzExitCode(f *testing.F) {
	for _, s := range []string{"Exit code 1", "Exit code 3\npartial-out\nsome-err", "Exit code -2\r\n", "Exit code x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		code, out, ok := ExitCode(s)
		if !ok {
			return
		}
		if !strings.HasPrefix(s, "Exit code "+strconv.Itoa(code)) || !strings.HasSuffix(s, out) {
			t.Errorf("ExitCode(%q) = %d, %q: not what the text says", s, code, out)
		}
	})
}

func FuzzPersistedOutputPath(f *testing.F) {
	f.Add("<persisted-output>\nOutput too large (223.5KB). Full output saved to: /a/tool-results/x.txt\n\nPreview (first 2KB):\n1\n")
	f.Add("<persisted-output>Full output saved to: ")
	f.Fuzz(func(t *testing.T, s string) {
		p, ok := PersistedOutputPath(s)
		if ok && (p == "" || strings.Contains(p, "\n") || !strings.Contains(s, p)) {
			t.Errorf("PersistedOutputPath(%q) = %q", s, p)
		}
	})
}

// FuzzScanUsageLine checks the fast usage reader against the decode
// path, both ways: it accepts exactly the lines transcript.Decode accepts
// (escapes and invalid input included), reads the same usage record from
// them, and names the same count fields as mismatched. Keys that only
// case-fold to a known name are left out: encoding/json matches them, the
// fast path (like Claude Code's writer) does not.
func FuzzScanUsageLine(f *testing.F) {
	f.Add([]byte(`{"type":"assistant","uuid":"u","message":{"id":"m","model":"x","usage":{"input_tokens":1,"output_tokens":2,"cache_read_input_tokens":3,"cache_creation_input_tokens":4}},"requestId":"r","sessionId":"s"}`))
	f.Add([]byte(`{"message":{"content":[{"text":"}]\"{"}],"usage":null},"type":"assistant"}`))
	f.Add([]byte(`{"a":[1,2,{"b":-1.5e3}],"type":"user"`))
	f.Add([]byte(`{"x":tru,"type":"assistant","message":{"usage":{"input_tokens":5}}}`))
	f.Add([]byte(`{"x":"\q","type":"assistant","message":{"usage":{"input_tokens":5}}}`))
	f.Add([]byte(`{"type":"a\u0073sistant","message":{"id":"\u006d","usage":{"input_tokens":1e999,"output_tokens":1.5,"cache_read_input_tokens":9223372036854775808,"cache_creation_input_tokens":"7"}}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if caseFolded(line) {
			return
		}
		var l usage.Line
		err := usage.ParseLine(line, &l)
		e, derr := transcript.Decode(line)
		if (err == nil) != (derr == nil) {
			t.Fatalf("fast path error %v, decode error %v\n%q", err, derr, line)
		}
		if err != nil {
			return
		}
		o := &Origin{}
		slow, sok := UsageMessage(o, e)
		fok := string(l.Type) == "assistant" && l.HasUsage && !l.APIError && string(l.Model) != "<synthetic>"
		if fok != sok {
			t.Fatalf("fast path counts %v, decode %v\n%q", fok, sok, line)
		}
		if fok {
			fast := usage.Message{MessageID: string(l.MessageID), RequestID: string(l.RequestID), RequestRef: string(l.RequestRef), UUID: string(l.UUID),
				Timestamp: string(l.Timestamp), Model: string(l.Model), SessionID: string(l.SessionID), AgentID: string(l.AgentID), Cwd: string(l.Cwd), Tokens: l.Tokens}
			bill := fast.Bill()
			fast.Key = usage.KeyOf(&bill)
			// (The decoded entry has no cache write split.)
			fast.Tokens.CacheCreation5m, fast.Tokens.CacheCreation1h = 0, 0
			if fast != slow {
				t.Fatalf("fast %+v\ndecode %+v\n%q", fast, slow, line)
			}
		}
		var want []string
		for _, m := range e.TypeMismatches {
			if strings.HasPrefix(m, "message.usage.") && strings.HasSuffix(m, "_tokens") {
				want = append(want, m)
			}
		}
		got := append([]string(nil), l.Bad...)
		slices.Sort(got)
		got = slices.Compact(got)
		if e.Type == "assistant" && strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("fast path names %q, decode %q\n%q", got, want, line)
		}
	})
}

// caseFolded reports whether line holds a key the usage path reads
// spelled in another case, or non-ASCII bytes that could fold to one.
// (A key escaped into another case, "\u0054ype", is not caught.)
func caseFolded(line []byte) bool {
	for _, c := range line {
		if c >= 0x80 {
			return true
		}
	}
	low := bytes.ToLower(line)
	for _, k := range []string{"type", "uuid", "timestamp", "sessionid", "agentid", "requestid", "requestref", "cwd",
		"isapierrormessage", "message", "id", "model", "usage", "input_tokens", "output_tokens",
		"cache_read_input_tokens", "cache_creation_input_tokens"} {
		if bytes.Count(low, []byte(k)) != bytes.Count(line, []byte(k)) {
			return true
		}
	}
	return false
}

// FuzzExtract feeds arbitrary lines to every kind, decoded and through the
// fast path: no panic, no error from the extraction itself.
func FuzzExtract(f *testing.F) {
	seed, _ := readSeed("testdata/handmade/projects/-home-dev-hand/22222222-3333-4444-8555-666666666666.jsonl")
	f.Add(seed)
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":7}]},"toolUseResult":"x"}` + "\n" +
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Agent","input":[]}]}}`))
	f.Add([]byte(`{"type":"system","subtype":"compact_boundary","compactMetadata":{"preTokens":"x"}}` + "\n" + `{"type":"attachment","attachment":{"type":"queued_command","prompt":[1]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, kind := range Kinds {
			for _, opts := range []Options{{Kind: kind}, {Kind: kind, All: true, Thinking: true, Errors: true, Unique: true}} {
				if kind == "usage" {
					opts.Sum = "day"
				}
				x, err := New(opts, func(any) error { return nil })
				if err != nil {
					t.Fatal(err)
				}
				for i, line := range bytes.Split(data, []byte("\n")) {
					e, err := transcript.Decode(line)
					if err != nil {
						continue
					}
					o := Origin{Line: i + 1}
					if err := x.Entry(o, e); err != nil {
						t.Fatal(err)
					}
				}
				if err := x.Close(); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			var l usage.Line
			_ = usage.ParseLine(line, &l)
		}
	})
}

func readSeed(path string) ([]byte, error) {
	var b bytes.Buffer
	_, err := transcript.ReadFile(path, transcript.Options{}, func(l *transcript.Line) error {
		b.Write(l.Bytes)
		b.WriteByte('\n')
		return nil
	})
	return b.Bytes(), err
}

// FuzzReadObject: whatever readObject reads, decodeObject decodes the
// same; it may give up (and leave it to decodeObject), never differ.
func FuzzReadObject(f *testing.F) {
	for _, s := range []string{`{"stdout":"a\nb","stderr":"","interrupted":false,"type":"create"}`, `{"stdout":null}`,
		`{"Stdout":"x"}`, `{"stdout":"a","stdout":"b"}`, `{"interrupted":"yes","stderr":"e"}`, `"Error: x"`, `[1]`, `{"x":[{"y":1}],"backgroundTaskId":"b1"}`} {
		f.Add([]byte(s))
	}
	type toolUseResult struct {
		Stdout              *string `json:"stdout"`
		Stderr              string  `json:"stderr"`
		Interrupted         bool    `json:"interrupted"`
		PersistedOutputPath string  `json:"persistedOutputPath"`
		BackgroundTaskID    string  `json:"backgroundTaskId"`
		Type                string  `json:"type"`
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var got toolUseResult
		ok := readObject(raw, []objField{
			{name: "stdout", strp: &got.Stdout}, {name: "stderr", str: &got.Stderr},
			{name: "interrupted", b: &got.Interrupted}, {name: "persistedOutputPath", str: &got.PersistedOutputPath},
			{name: "backgroundTaskId", str: &got.BackgroundTaskID}, {name: "type", str: &got.Type},
		})
		if !ok {
			return
		}
		var want toolUseResult
		if !decodeObject(raw, &want) {
			t.Fatalf("readObject read a non-object: %q", raw)
		}
		if (got.Stdout == nil) != (want.Stdout == nil) || (got.Stdout != nil && *got.Stdout != *want.Stdout) {
			t.Fatalf("stdout %v, decode %v: %q", got.Stdout, want.Stdout, raw)
		}
		got.Stdout, want.Stdout = nil, nil
		if got != want {
			t.Fatalf("readObject %+v, decode %+v: %q", got, want, raw)
		}
	})
}
