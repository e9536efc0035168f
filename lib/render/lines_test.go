package render

import (
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
)

func withMaxString(t *testing.T, n int) {
	old := MaxString
	MaxString = n
	t.Cleanup(func() { MaxString = old })
}

// TestLineReaderCuts checks that long strings are cut between characters
// and the line stays valid JSON with the rest intact.
func TestLineReaderCuts(t *testing.T) {
	withMaxString(t, 8)
	in := `{"a":"0123456789abcdef","b":"short","c":"\u00e9\u00e9\u00e9\u00e9\"\"\"\"xxxxxx","d":"ééééééééé","e":[1,"x"]}` + "\n" +
		`{"f":"tail"}` + "\r\n" + `{"g":"last"}`
	lr := newLineReader(strings.NewReader(in))
	line, err := lr.next()
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(line, &v); err != nil {
		t.Fatalf("cut line is not JSON: %v\n%s", err, line)
	}
	if lr.cut != 3 || v["b"] != "short" || !strings.HasPrefix(v["a"].(string), "01234567\n\n[8 bytes more not shown") {
		t.Errorf("cut %d: %v", lr.cut, v)
	}
	if d := v["d"].(string); !strings.HasPrefix(d, "éééé\n") {
		t.Errorf("a UTF-8 sequence was split: %q", d)
	}
	for _, want := range []string{`{"f":"tail"}`, `{"g":"last"}`} {
		line, err = lr.next()
		if err != nil || string(line) != want {
			t.Errorf("got %q %v, want %q", line, err, want)
		}
	}
	if !lr.partial || lr.n != 3 {
		t.Errorf("partial %v, line %d", lr.partial, lr.n)
	}
	if _, err := lr.next(); err != io.EOF {
		t.Errorf("want EOF, got %v", err)
	}
}

// TestLineReaderSpills checks that a long image "data" string goes to a
// file, whole, and only base64 is taken for an image.
func TestLineReaderSpills(t *testing.T) {
	withMaxString(t, 8)
	sp := newSpiller()
	defer sp.remove()
	data := strings.Repeat("QUJD", 10)
	in := `{"source":{"type":"base64","data":"` + data + `"},"x":{"data":"` + strings.Repeat("A", 20) + `<b>"}}` + "\n"
	lr := newLineReader(strings.NewReader(in))
	lr.spill = sp
	line, err := lr.next()
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Source struct{ Data string }
		X      struct{ Data string }
	}
	if err := json.Unmarshal(line, &v); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	path, ok := sp.lookup(v.Source.Data)
	if !ok {
		t.Fatalf("image data not spilled: %q", v.Source.Data)
	}
	if b, _ := os.ReadFile(path); string(b) != data {
		t.Errorf("spilled %q, want %q", b, data)
	}
	if p, ok := sp.lookup(v.X.Data); p == "" || ok {
		t.Errorf("non-base64 data taken as an image: %q %v", p, ok)
	}
	if p, _ := sp.lookup(spillRef + "0"); p != "" {
		t.Error("a reference without the nonce resolved")
	}
}

// FuzzLineReader checks that cutting keeps a valid JSON line valid.
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{`{"a":"\u00e9\u00e9\u00e9\u00e9\u00e9"}`, `{"a":"\ud83d\ude00\ud83d\ude00xxxxx"}`,
		`["ééééééééé","\\\\\\\\\\\\\\\\\\"]`, `{"data":"QUJDQUJDQUJDQUJD"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "\n") || !json.Valid([]byte(s)) {
			return
		}
		withMaxString(t, 5)
		sp := newSpiller()
		defer sp.remove()
		lr := newLineReader(strings.NewReader(s + "\n"))
		lr.spill = sp
		line, err := lr.next()
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(line) {
			t.Fatalf("%q cut to invalid %q", s, line)
		}
	})
}
