package jsonscan

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestAppendString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{"a\"b\\c", `"a\"b\\c"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x1f\x7f", `"\u0000\u001f` + "\x7f" + `"`},
		{"</script>\u2028/", "\"</script>\u2028/\""},
		{"bad \xff utf-8", "\"bad \xff utf-8\""},
	}
	for _, tt := range tests {
		if got := string(AppendString(nil, tt.in)); got != tt.want {
			t.Errorf("AppendString(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if got := string(AppendString(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("AppendString([]byte %q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// FuzzAppendString: the output is valid JSON that decodes to the input,
// whenever the input is valid UTF-8.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"\\\n", "\x00\x01\u2028", "ünï"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := AppendString(nil, s)
		if !Valid(b) {
			t.Fatalf("%q: not valid JSON: %s", s, b)
		}
		if !utf8.ValidString(s) {
			return
		}
		var back string
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Fatalf("%q: round trip %q, %v", s, back, err)
		}
	})
}
