package cassette

import (
	"bytes"
	"testing"
	"unicode/utf8"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// FuzzAppendStringMatchesJSONScan: on well-formed UTF-8, where
// JSON.stringify and JSON agree, the cassette's escaper is the one
// escaper, jsonscan.AppendString, byte for byte; only ill-formed input
// (lone surrogates, bad bytes) is written differently, as
// JSON.stringify does.
func FuzzAppendStringMatchesJSONScan(f *testing.F) {
	for _, s := range []string{"", "plain", "q\"b\\s", "\x00\x1f\u2028</", "ünïcødé 🎉", "\xed\xa0\x80", "bad\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendString(nil, s)
		if !utf8.ValidString(s) {
			if !utf8.Valid(got) {
				t.Fatalf("%q: ill-formed input must come out well-formed: %q", s, got)
			}
			return
		}
		if want := jsonscan.AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: cassette %s, jsonscan %s", s, got, want)
		}
	})
}
