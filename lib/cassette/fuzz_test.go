package cassette

import (
	"bytes"
	"io"
	"testing"
)

// FuzzParse: Parse never panics, and what it accepts encodes to canonical
// text that parses back to the same canonical text.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x\u0000",null,true]}`, `"\ud800"`, `1e400`, `{"10":1,"9":2}`, "\"\xff\"", `[[[]]]`, `-0`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if err != nil {
			return
		}
		c, err := AppendCanonical(nil, v)
		if err != nil {
			return // a non-finite number
		}
		v2, err := Parse(c)
		if err != nil {
			t.Fatalf("canonical text %q does not parse: %v", c, err)
		}
		c2, _ := AppendCanonical(nil, v2)
		if !bytes.Equal(c, c2) {
			t.Fatalf("canonical text not stable: %q then %q", c, c2)
		}
		js, _ := AppendJS(nil, v)
		ind, _ := AppendIndent(nil, v)
		v3, err1 := Parse(js)
		v4, err2 := Parse(ind)
		if err1 != nil || err2 != nil || !Equal(v, v3) || !Equal(v, v4) {
			t.Fatalf("JS forms do not read back: %v %v", err1, err2)
		}
	})
}

// FuzzReader: the cassette reader never panics and always ends.
func FuzzReader(f *testing.F) {
	f.Add([]byte("{\"version\":2,\"id\":\"x\",\"createdAt\":0}\n{\"index\":0}\n"))
	f.Add([]byte("{\n\"version\":2,\"steps\":[{}]}"))
	f.Add([]byte("{\"version\":2,\"steps\":[]}\n{\"version\":2}\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data))
		for i := 0; i <= len(data)+1; i++ {
			if _, err := r.Next(); err != nil {
				if err == io.EOF || err.Error() != "" {
					return
				}
			}
		}
		t.Fatal("reader did not end")
	})
}
