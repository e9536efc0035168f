package ndjson

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// slowJSON is encoding/json's writing of v as Writer writes it: the slow
// twin of AppendString, AppendRaw and an Appender.
func slowJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := MarshalReflect(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var stringSeeds = []string{
	"", "plain", `a "quoted" \ back`, "\n\r\t\b\f\x00\x01\x1f\x7f", "<>&/", "\u2028\u2029x\u2027\u202a",
	"\xff\xfe bad \xe2\x80 cut", "é中文🙂", "ab\xe2\x80\xa8cdefgh" + strings.Repeat("x", 20) + "\"",
	"12345678\n12345678\x1b[0m", "\ufffd", "\xed\xa0\x80",
}

// FuzzAppendString keeps AppendString byte-identical to encoding/json.
func FuzzAppendString(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := slowJSON(t, s)
		for pre := range 9 { // every alignment of the 8-byte steps
			p := strings.Repeat("a", pre)
			if got := AppendString(nil, p+s); !bytes.Equal(got, slowJSON(t, p+s)) {
				t.Fatalf("AppendString(%q) = %s, encoding/json %s", p+s, got, slowJSON(t, p+s))
			}
		}
		if got := AppendString([]byte("x"), s); !bytes.Equal(got[1:], want) {
			t.Fatalf("AppendString after a byte = %s, want %s", got[1:], want)
		}
	})
}

// FuzzAppendRaw keeps AppendRaw byte-identical to encoding/json's
// writing of a json.RawMessage, for valid JSON (what it is given).
func FuzzAppendRaw(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{ "a" : [1, 2] }`, `"x \" y"`, `"\\"`, `["\\\" ",  "a"]`, `{"k":"v w","z":{ }}`,
		"\t{\"a\":\"\\u2028 <&>\"}\n", `null`, `[ ]`, `{"a":"\\\\"} `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		got, ok := AppendRaw(nil, raw)
		if want := slowJSON(t, json.RawMessage(raw)); !ok || !bytes.Equal(got, want) {
			t.Fatalf("AppendRaw(%q) = %s %v, encoding/json %s", raw, got, ok, want)
		}
	})
}

func TestAppendRawNil(t *testing.T) {
	if got, ok := AppendRaw(nil, nil); !ok || string(got) != "null" {
		t.Errorf("AppendRaw(nil) = %s %v", got, ok)
	}
	if _, ok := AppendRaw(nil, []byte{}); ok {
		t.Error("AppendRaw of an empty, non-nil value: ok (encoding/json fails it)")
	}
	if _, ok := AppendRaw(nil, []byte(`{"a": x}`)); ok {
		t.Error("AppendRaw of invalid JSON with blanks: ok")
	}
}

type appended struct{ s string }

func (a appended) AppendJSON(dst []byte) ([]byte, bool) {
	if a.s == "" {
		return dst, false
	}
	return AppendString(dst, a.s), true
}

// TestWriterAppender: Writer and Marshal write an Appender's line, and
// encoding/json's when it declines.
func TestWriterAppender(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	for _, v := range []any{appended{"x<"}, appended{}, map[string]int{"a": 1}} {
		if err := w.Encode(v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := "\"x<\"\n{}\n{\"a\":1}\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	if m, err := Marshal(appended{"y"}); err != nil || string(m) != `"y"` {
		t.Errorf("Marshal = %s %v", m, err)
	}
}

// FuzzCanonical: Canonical holds of exactly the JSON strings AppendString
// writes for the text they stand for (which a fact copies out as they
// are).
func FuzzCanonical(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add(string(AppendString(nil, s)))
		f.Add(string(jsonscan.AppendString(nil, s)))
	}
	for _, s := range []string{`"\u0008"`, `"\u001b"`, `"\u001B"`, `"\u0041"`, `"\/"`, `"\ud83d\ude00"`, `"\u2028"`, `"a\u000b"`, `"\ufffd"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if !json.Valid([]byte(q)) || !strings.HasPrefix(q, `"`) || strings.TrimSpace(q) != q {
			return
		}
		want := string(AppendString(nil, jsonscan.StringOf([]byte(q)))) == q
		if got := Canonical([]byte(q)); got != want {
			t.Fatalf("Canonical(%s) = %v, want %v (AppendString of its text: %s)", q, got, want, AppendString(nil, jsonscan.StringOf([]byte(q))))
		}
	})
}
