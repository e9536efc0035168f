package cassette

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The last hashes Blackbox's spec quotes for its fixtures (section 2.3).
var fixtureLast = map[string][2]string{
	"success-final-answer.v2.json": {"b691b4fd", "85ed"},
	"error-unknown-tool.v2.json":   {"3728bf09", "103d"},
	"fork-child.v2.json":           {"dc359be4", "f4bc"},
}

func TestFixtureHashes(t *testing.T) {
	for name, want := range fixtureLast {
		f, err := os.Open(filepath.Join("testdata", "blackbox", name))
		if err != nil {
			t.Fatal(err)
		}
		cs, err := ReadAll(f)
		f.Close()
		if err != nil || len(cs) != 1 {
			t.Fatalf("%s: %v (%d cassettes)", name, err, len(cs))
		}
		var last string
		for i, s := range cs[0].Steps {
			got, err := HashStep(s, nil)
			if err != nil {
				t.Fatalf("%s step %d: %v", name, i, err)
			}
			stored, _ := s.GetString("hash")
			if got != stored {
				t.Errorf("%s step %d: hash %s, stored %s", name, i, got, stored)
			}
			last = got
		}
		if !strings.HasPrefix(last, want[0]) || !strings.HasSuffix(last, want[1]) {
			t.Errorf("%s: last hash %s, spec says %s…%s", name, last, want[0], want[1])
		}
	}
}

func TestSpecCanonicalExample(t *testing.T) {
	// Spec 2.1: fixture success-final-answer, step 1.
	prev := "69f285d56c33b1bc303c46487dabb75cce71ae3cecdbb713b0492780409d608d"
	r := &Recorder{id: "x", n: 1, prev: prev}
	payload := ObjectValue(Member{"type", StringValue("final_answer")}, Member{"text", StringValue("The capital of France is Paris.")})
	s, err := r.Append(ModelOutput, 0, payload)
	if err != nil {
		t.Fatal(err)
	}
	if s.Hash != "92e98ba5d5c743e9fd25db58dea782aad943302530cc91e4e49bcec8e10b70c2" {
		t.Errorf("hash %s", s.Hash)
	}
	got, _ := AppendCanonical(nil, s.Value().Without("id").Without("hash"))
	want := `{"index":1,"payload":{"text":"The capital of France is Paris.","type":"final_answer"},"prevHash":"` + prev + `","timestamp":0,"type":"model_output"}`
	if string(got) != want {
		t.Errorf("canonical\n got %s\nwant %s", got, want)
	}
}

func canon(t *testing.T, in string) string {
	t.Helper()
	v, err := Parse([]byte(in))
	if err != nil {
		t.Fatalf("Parse(%q): %v", in, err)
	}
	out, err := AppendCanonical(nil, v)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(out)
}

func TestCanonicalRules(t *testing.T) {
	cases := []struct{ in, want string }{
		{`12345678901234567890`, `12345678901234567000`},
		{`9007199254740993`, `9007199254740992`},
		{`1e20`, `100000000000000000000`},
		{`1.0`, `1`},
		{`2.50`, `2.5`},
		{`1E2`, `100`},
		{`0.000001`, `0.000001`},
		{`1e21`, `1e+21`},
		{`1e-7`, `1e-7`},
		{`1.5e-7`, `1.5e-7`},
		{`1.7976931348623157e308`, `1.7976931348623157e+308`},
		{`5e-324`, `5e-324`},
		{`-0`, `0`},
		{`-0.0`, `0`},
		{`1e400`, `error: non-finite number`},
		{`1e-400`, `0`},
		{`123.456`, `123.456`},
		{`-1.5e300`, `-1.5e+300`},
		{`"a\"b\\c\/d"`, `"a\"b\\c/d"`},
		{`"\b\f\n\r\t\u0001\u001F\u007f"`, `"\b\f\n\r\t\u0001\u001f` + "\x7f" + `"`},
		{`"\u2028\u2029\uFEFF<>&"`, "\"\u2028\u2029\uFEFF<>&\""},
		{`"\ud800"`, `"\ud800"`},
		{`"\uDC00x\uD83D"`, `"\udc00x\ud83d"`},
		{`"\ud83d\ude00"`, "\"\U0001F600\""},
		{`"\u00e9é"`, `"éé"`},
		{`{"b":1,"a":2,"10":3,"9":4,"B":5}`, `{"10":3,"9":4,"B":5,"a":2,"b":1}`},
		{"{\"\uFF01\":1,\"\U0001F600\":2}", "{\"\U0001F600\":2,\"\uFF01\":1}"},
		{`{"a":1,"a":2}`, `{"a":2}`},
		{` [ 1 , {"x" : [ ] , "y":{}} , null,true,false ] `, `[1,{"x":[],"y":{}},null,true,false]`},
		{"\"\xff\"", "\"\uFFFD\""},
	}
	for _, c := range cases {
		if got := canon(t, c.in); got != c.want {
			t.Errorf("canonical(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{``, `{`, `[1,]`, `{"a":1,}`, `01`, `1.`, `.5`, `+1`, `"\x01"`, `"\u12"`, `'a'`, `{"a" 1}`, `nul`, `1 2`, `"abc`, `"\q"`, `NaN`, `Infinity`} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) succeeded", in)
		}
	}
	if _, err := Parse([]byte(strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1))); err == nil {
		t.Error("deep nesting accepted")
	}
}

func TestObjectOrder(t *testing.T) {
	v, err := Parse([]byte(`{"b":1,"2":2,"a":3,"1":4,"01":5,"4294967295":6,"4294967294":7,"b":8}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := AppendJS(nil, v)
	want := `{"1":4,"2":2,"4294967294":7,"b":8,"a":3,"01":5,"4294967295":6}`
	if string(got) != want {
		t.Errorf("JS order %s, want %s", got, want)
	}
}

func TestRecorderChain(t *testing.T) {
	r := NewRecorder("run")
	var steps []Value
	for i := 0; i < 3; i++ {
		s, err := r.Append(Metadata, int64(i), ObjectValue(Member{"n", IntValue(int64(i))}))
		if err != nil {
			t.Fatal(err)
		}
		if s.ID != "run:"+string(rune('0'+i)) || s.Index != i {
			t.Errorf("step %d: id %s index %d", i, s.ID, s.Index)
		}
		steps = append(steps, s.Value())
	}
	for i, sv := range steps {
		h, err := HashStep(sv, nil)
		if err != nil {
			t.Fatal(err)
		}
		s, err := DecodeStep(sv)
		if err != nil {
			t.Fatal(err)
		}
		if h != s.Hash {
			t.Errorf("step %d: recomputed %s, stored %s", i, h, s.Hash)
		}
		if i > 0 {
			prev, _ := DecodeStep(steps[i-1])
			if s.PrevHash != prev.Hash {
				t.Errorf("step %d prevHash does not link", i)
			}
		}
	}
	if _, err := r.Append(Metadata, 0, NumberValue(math.Inf(1))); err == nil {
		t.Error("non-finite payload hashed")
	}
	c := NewRecorder("child")
	s0, _ := DecodeStep(steps[0])
	s1, _ := DecodeStep(steps[1])
	if _, err := c.Copy(s0); err != nil {
		t.Fatal(err)
	}
	got, err := c.Copy(s1)
	if err != nil || got.ID != "child:1" || got.Hash != s1.Hash {
		t.Errorf("Copy: %+v %v", got, err)
	}
	if _, err := c.Copy(s0); err == nil {
		t.Error("Copy accepted a step that does not continue the chain")
	}
}

func TestReaderForms(t *testing.T) {
	// One cassette in each form, converted back and forth, is byte-stable.
	f, _ := os.Open("testdata/blackbox/fork-child.v2.json")
	cs, err := ReadAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := AppendDocument(nil, cs[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(doc), "{\n  \"version\": 2,\n  \"id\": \"fixture-fork-parent-fork\",\n  \"createdAt\": 0,\n  \"steps\": [\n    {\n") ||
		!strings.HasSuffix(string(doc), "  ],\n  \"parentId\": \"fixture-fork-parent\",\n  \"forkedFromStepId\": \"fixture-fork-parent:4\"\n}") {
		t.Errorf("document form:\n%s", doc)
	}
	var nd strings.Builder
	w := NewWriter(&nd)
	if err := w.WriteCassette(cs[0]); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	lines := strings.Split(strings.TrimSuffix(nd.String(), "\n"), "\n")
	if len(lines) != 8 || lines[0] != `{"version":2,"id":"fixture-fork-parent-fork","createdAt":0,"parentId":"fixture-fork-parent","forkedFromStepId":"fixture-fork-parent:4"}` {
		t.Errorf("NDJSON form: %d lines, header %s", len(lines), lines[0])
	}
	cs2, err := ReadAll(strings.NewReader(nd.String()))
	if err != nil {
		t.Fatal(err)
	}
	doc2, _ := AppendDocument(nil, cs2[0])
	if string(doc2) != string(doc) {
		t.Error("NDJSON → document is not byte-stable")
	}
	cs3, err := ReadAll(strings.NewReader(string(doc2)))
	if err != nil || len(cs3) != 1 || len(cs3[0].Steps) != 7 {
		t.Fatalf("re-reading the document: %v", err)
	}
}

func TestReaderErrors(t *testing.T) {
	hdr := `{"version":2,"id":"x","createdAt":0}` + "\n"
	step := `{"id":"x:0","index":0,"type":"metadata","timestamp":0,"payload":{},"prevHash":null,"hash":"h"}` + "\n"
	cases := []struct{ in, want string }{
		{"", "empty"},
		{step, "line 1: missing header"},
		{hdr + hdr, "line 2: duplicate header"},
		{hdr + step + `{"id":"x:1","ind`, "line 3: truncated"},
		{hdr + "[1]\n", "line 2: an array, not a JSON object"},
		{hdr + "{bad\n", "line 2: not valid JSON"},
		{"{\n \"version\": 2,\n \"steps\": [\n", "not valid JSON"},
		{`{"version":2,"steps":{}}`, "steps is an object"},
	}
	for _, c := range cases {
		_, err := ReadAll(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadAll(%q) = %v, want %q", c.in, err, c.want)
		}
	}
	// Several cassettes in a row, and a cassette without steps.
	cs, err := ReadAll(strings.NewReader(hdr + step + `{"version":2,"id":"y","createdAt":0}` + "\n"))
	if err != nil || len(cs) != 2 || len(cs[0].Steps) != 1 || len(cs[1].Steps) != 0 {
		t.Errorf("two cassettes: %v %d", err, len(cs))
	}
	r := NewReader(strings.NewReader(hdr))
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the header: %v", err)
	}
}

func TestFromAny(t *testing.T) {
	v, err := FromAny(map[string]any{"b": []any{1, 2.5, "x", nil, true}, "a": map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := AppendJS(nil, v)
	if string(got) != `{"a":{},"b":[1,2.5,"x",null,true]}` {
		t.Errorf("FromAny: %s", got)
	}
	if _, err := FromAny(struct{}{}); err == nil {
		t.Error("FromAny accepted a struct")
	}
	back, _ := FromAny(ToAny(v))
	if !Equal(v, back) {
		t.Error("ToAny/FromAny round trip")
	}
}

// Hashing streams long strings to SHA-256 in pieces; the result must be
// the hash of the whole canonical text, wherever the pieces are cut.
func TestStreamedHashMatchesCanonical(t *testing.T) {
	units := []string{"a", "é", "\U0001F600", `\"`, `\n`, `\ud800`, "\u2028", `\u0001`}
	for k, unit := range units {
		for _, n := range []int{flushAt - 1, flushAt, flushAt + 1, 3*flushAt + 7} {
			var b strings.Builder
			b.WriteString(`{"index":0,"type":"metadata","timestamp":0,"prevHash":null,"hash":"","payload":{"text":"`)
			for b.Len() < n {
				b.WriteString(units[(k+b.Len())%len(units)])
				b.WriteString(unit)
			}
			b.WriteString(`","more":[1,2,"x"]}}`)
			step, err := Parse([]byte(b.String()))
			if err != nil {
				t.Fatal(err)
			}
			got, err := HashStep(step, nil)
			if err != nil {
				t.Fatal(err)
			}
			canon, _ := AppendCanonical(nil, step.Without("hash"))
			sum := sha256.Sum256(canon)
			if want := hex.EncodeToString(sum[:]); got != want {
				t.Errorf("unit %q size %d: streamed hash %s, canonical %s", unit, n, got, want)
			}
		}
	}
}
