package cassette

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// textHash is a hash.Hash that keeps what it is given, to read the
// canonical text rawHasher writes.
type textHash struct{ bytes.Buffer }

func (h *textHash) Sum(b []byte) []byte { return append(b, h.Bytes()...) }
func (h *textHash) Size() int           { return 0 }
func (h *textHash) BlockSize() int      { return 1 }

// TestRawCanonical: the canonical text made from the bytes equals the
// one made from the parsed Value, or the lexer or encoder declines.
func TestRawCanonical(t *testing.T) {
	for _, s := range []string{
		`1`, `-1`, `0`, `-0`, `0.1`, `1.5e300`, `1E2`, `-0.0`, `123456789012345678`, `999999999999999`, `1e21`, `1e-7`, `12.50`,
		`1e400`, `true`, `null`, `"a\"b\\c\n\t\u0001\u001f"`, `"\u001F"`, `"\/"`, `"\u0041"`, `"\ud83d\ude00"`, `"\ud800"`,
		`{"b":1,"a":2,"":3}`, `{"\uE000":1,"😀":2,"z":3}`, `{"` + "\uE000" + `":1,"😀":2}`, `{"a":1,"a":2}`,
		`[1, 2 , {"y" : [ ] , "x" : { } }]`, `"` + strings.Repeat("long text ", 20000) + `"`,
		`{"10":1,"9":2,"a":[{"k":"v","j":"w"}]}`, `"é ü 😀"`,
	} {
		line := []byte(`{"x":` + s + `}`)
		v, perr := Parse(line)
		var r RawStep
		lexed := r.lex(line)
		if lexed && perr != nil {
			t.Errorf("%s: lexed but Parse fails: %v", s, perr)
			continue
		}
		if !lexed {
			continue
		}
		want, werr := AppendCanonical(nil, v)
		h := &textHash{}
		e := rawHasher{r: &r, h: h}
		ok := e.canonical(0)
		h.Write(e.buf)
		if !ok {
			if werr == nil && !strings.Contains(s, `"a":1,"a"`) {
				t.Errorf("%s: declined, but canonical is %s", s, want)
			}
			continue
		}
		if werr != nil || !bytes.Equal(h.Bytes(), want) {
			t.Errorf("%s: raw canonical %.200s, want %.200s (%v)", s, h.Bytes(), want, werr)
		}
	}
}

// verifyStream runs the command's loop over data, lazy or not.
func verifyStream(data []byte, lazy bool) (out []Report, fast int) {
	rd := NewReader(bytes.NewReader(data))
	rd.Lazy = lazy
	var v *Verifier
	for {
		rec, err := rd.Next()
		if err != nil {
			if err != io.EOF {
				out = append(out, LoadFailure("", err))
			}
			break
		}
		if rec.Header {
			if v != nil {
				out = append(out, v.Report())
			}
			v = &Verifier{Keys: []string{"sk-test-secret-1234", "tab\tkey"}}
			v.Header(rec.Value)
			continue
		}
		if rec.Raw != nil {
			if v.rawStep(rec.Raw) {
				fast++
			} else {
				v.StepRaw(rec.Raw)
			}
			continue
		}
		v.Step(rec.Value)
	}
	if v != nil {
		out = append(out, v.Report())
	}
	return out, fast
}

func checkLazySame(t *testing.T, name string, data []byte) int {
	t.Helper()
	a, _ := verifyStream(data, false)
	b, fast := verifyStream(data, true)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("%s: lazy verify differs:\n%s\n%s", name, ja, jb)
	}
	return fast
}

// TestLazyVerifySame: verify from the bytes (StepRaw) reports exactly what
// verify from parsed Values does, on the golden cassettes and on tampered
// copies, and the fast path does take the clean steps.
func TestLazyVerifySame(t *testing.T) {
	var inputs [][]byte
	files, _ := filepath.Glob("../commands/cccassette/testdata/corpus/*.ndjson")
	more, _ := filepath.Glob("testdata/blackbox/*.json")
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := ReadAll(bytes.NewReader(data))
		if err != nil {
			continue
		}
		var b bytes.Buffer
		w := NewWriter(&b)
		for _, c := range cs {
			w.WriteCassette(c)
		}
		w.Flush()
		inputs = append(inputs, b.Bytes())
	}
	if len(inputs) < 3 {
		t.Fatalf("only %d golden cassettes found", len(inputs))
	}
	total := 0
	for i, data := range inputs {
		total += checkLazySame(t, "golden", data)
		lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
		// Tamper with each step line in turn.
		edits := [][2]string{
			{`"index":`, `"index": `}, {`"index":1,`, `"index":1.0,`}, {`"type":"`, `"type":"x`}, {`"prevHash":"`, `"prevHash":"0`},
			{`"payload":{`, `"payload":{"usage":1,`}, {`"payload":{`, `"payload":{"a":"sk-test-secret-1234",`},
			{`"payload":{`, `"payload":{"a":"\/",`}, {`"payload":{`, `"payload":{"a":1,"a":2,`}, {`"payload":{`, `"payload":{"a":1e400,`},
			{`"hash":"`, `"payload":null,"hash":"`}, {`"payload":`, `"payload":null,"payload":`}, {`"payload":{`, `"payload":{"text":"toolu_01ABCDEFGHIJKLMNOPQRSTUV",`},
			{`"payload":{`, `"payload":{"event":"run_completed","status":"success",`}, {`"payload":{`, `"payload":{"\u0061":1,`},
		}
		for n := 1; n < len(lines); n++ {
			for _, ed := range edits {
				if !bytes.Contains(lines[n], []byte(ed[0])) {
					continue
				}
				cp := make([][]byte, len(lines))
				copy(cp, lines)
				cp[n] = bytes.Replace(lines[n], []byte(ed[0]), []byte(ed[1]), 1)
				checkLazySame(t, "golden "+string(rune('0'+i%10))+" edit "+ed[1], bytes.Join(cp, []byte("\n")))
			}
		}
	}
	if total == 0 {
		t.Fatal("the fast path took no step")
	}
}

// FuzzLazyVerify: for any input, lazy verify reports what verify does.
func FuzzLazyVerify(f *testing.F) {
	f.Add(bigCassette(2, 100, true))
	f.Add([]byte("{\"version\":2,\"id\":\"x\",\"createdAt\":0}\n{\"index\":0}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkLazySame(t, "fuzz", data)
	})
}

// TestLazyVerifyRecorded: chains with valid hashes over payloads of every
// JSON shape, a success claim that is not the last step, and each
// terminal status, take the fast path and report what verify does.
func TestLazyVerifyRecorded(t *testing.T) {
	payloads := []string{
		`{"event":"run_completed","status":"success","result":"done"}`,
		`{"messages":[{"role":"user","content":"a\"b\n\u0001 é 😀"}],"n":[1.5e300,-0,0.1,1e21,123456789012345678],"z":{"\uE000":1,"😀":2}}`,
		`{"event":"run_failed","status":"error","reason":"boom"}`,
		`{"event":"run_completed","status":"success"}`,
		`{"event":"other"}`,
	}
	// A key that only the decoded text holds (the literal has \t) must
	// turn the fast path away, the finding reported as verify does.
	{
		r := NewRecorder("esc")
		var b bytes.Buffer
		w := NewWriter(&b)
		w.Write(Header{Version: 2, ID: "esc"}.Value())
		s, _ := r.Append(ToolResult, 0, ObjectValue(Member{"result", StringValue("a tab\tkey here")}))
		w.Write(s.Value())
		w.Flush()
		if fast := checkLazySame(t, "escaped key", b.Bytes()); fast != 0 {
			t.Errorf("the fast path took a step holding a key")
		}
		if rep, _ := verifyStream(b.Bytes(), true); len(rep) != 1 || len(rep[0].Findings) != 1 {
			t.Errorf("escaped key: %+v", rep)
		}
	}
	fastTotal := 0
	for last := range payloads {
		r := NewRecorder("rec")
		var b bytes.Buffer
		w := NewWriter(&b)
		w.Write(Header{Version: 2, ID: "rec"}.Value())
		for i := 0; i <= last; i++ {
			p, err := Parse([]byte(payloads[i]))
			if err != nil {
				t.Fatal(err)
			}
			s, err := r.Append(Metadata, int64(i), p)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(s.Value())
		}
		w.Flush()
		fastTotal += checkLazySame(t, payloads[last], b.Bytes())
		if rep, _ := verifyStream(b.Bytes(), true); len(rep) != 1 || (last == 0 || last == 3) != rep[0].Pass {
			t.Errorf("ending with %s: %+v", payloads[last], rep)
		}
	}
	if want := 1 + 2 + 3 + 4 + 5; fastTotal != want {
		t.Errorf("fast path took %d steps, want %d", fastTotal, want)
	}
}

// TestBuiltVerifySame: verify of a just-imported cassette with Built set
// (stored hashes trusted, long shared strings scanned once) reports what
// the full verify does, findings included.
func TestBuiltVerifySame(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/corpus/claude/projects/*/*.jsonl")
	files = append(files, "testdata/blackbox/claude-code-session.jsonl")
	long := strings.Repeat("x", 300)
	found := 0
	for _, f := range files {
		c := importFile(t, f, ImportOptions{})
		for _, keys := range [][]string{nil, {"file", "the ", long[:4]}} {
			want, _ := json.Marshal(Verify(c, keys...))
			v := &Verifier{Keys: keys, Built: true}
			v.Header(c.Header)
			for _, s := range c.Steps {
				v.Step(s)
			}
			got, _ := json.Marshal(v.Report())
			found += bytes.Count(got, []byte("api-key-value"))
			if !bytes.Equal(want, got) {
				t.Errorf("%s %v: built verify differs:\n%s\n%s", f, keys, want, got)
			}
		}
	}
	if len(files) < 3 || found < 10 {
		t.Fatalf("only %d transcripts, %d findings", len(files), found)
	}
}
