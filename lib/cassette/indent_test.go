package cassette

import (
	"bytes"
	"strings"
	"testing"
)

type maxWriter struct {
	bytes.Buffer
	largest int
}

func (w *maxWriter) Write(p []byte) (int, error) {
	w.largest = max(w.largest, len(p))
	return w.Buffer.Write(p)
}

// WriteIndent writes what AppendIndent builds, in pieces bounded
// whatever the nesting (issue 31 #12: convert --to json built the
// quadratic indentation of deep nesting in memory and died).
func TestWriteIndentStreams(t *testing.T) {
	for _, in := range []string{
		`{"a":[1,{"b":"x"},[]],"c":{}}`,
		strings.Repeat(`{"k":[`, 300) + `1` + strings.Repeat(`]}`, 300),
		`["` + strings.Repeat("é", 50000) + `"]`,
	} {
		v, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		want, err := AppendIndent(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		var w maxWriter
		if err := WriteIndent(&w, v); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w.Bytes(), want) {
			t.Errorf("%.40s: WriteIndent differs from AppendIndent", in)
		}
	}
	deep := strings.Repeat("[", 3000) + strings.Repeat("]", 3000) // ~9 MB indented
	v, err := Parse([]byte(deep))
	if err != nil {
		t.Fatal(err)
	}
	var w maxWriter
	if err := WriteIndent(&w, v); err != nil {
		t.Fatal(err)
	}
	if w.Len() < 9_000_000 || w.largest > 2*flushAt+8192 {
		t.Errorf("%d bytes written, the largest write %d: want pieces of about %d", w.Len(), w.largest, flushAt)
	}
}

// Messages name a kind with its article: "an array", never "a array".
func TestKindArticle(t *testing.T) {
	_, err := NewReader(strings.NewReader("[1]\n")).Next()
	if err == nil || !strings.Contains(err.Error(), "an array, not a JSON object") {
		t.Errorf("err %v", err)
	}
	if got := Number.Article(); got != "a number" {
		t.Errorf("Number.Article() = %q", got)
	}
}
