package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// replaceInvalid replaces each byte of b that is not UTF-8 by U+FFFD, as
// encoding/json does.
func replaceInvalid(b []byte) []byte {
	var out []byte
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, r)
		} else {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return out
}

// FuzzUnescape holds the one JSON string decoder to encoding/json: for a
// body encoding/json accepts between quotes, Unquote gives its string;
// AppendUnescaped gives it too, with the bytes that are not UTF-8 kept
// (replaced, they are encoding/json's); AppendUnescapedPrefix gives a
// prefix of that, at least limit bytes long (or all of it); and a body
// encoding/json refuses for its escapes is an error.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{`a`, `\"\\\/\b\f\n\r\t`, `\u00e9`, `\u00E9x`, `\ud83d\ude00`, `\ud800x`, `\ud800\u0041`,
		`\udc00`, `\q`, "\xff", "caf\xc3\xa9 \xe2\x82", "\xe2\\u0082\xac", `\`, `\u12`, `\uZZZZ`, `abc\ud83d\ude00def\n`} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, body []byte, limit int) {
		var want string
		jerr := json.Unmarshal(append(append([]byte{'"'}, body...), '"'), &want)
		kept, err := AppendUnescaped([]byte("x"), body)
		if jerr != nil {
			// encoding/json also refuses control characters and a bare
			// quote, which are the scanner's to refuse, not the decoder's.
			if err == nil && !bytes.ContainsFunc(body, func(r rune) bool { return r < 0x20 || r == '"' }) {
				t.Fatalf("AppendUnescaped(%q) accepted what encoding/json refuses: %v", body, jerr)
			}
			return
		}
		if err != nil {
			t.Fatalf("AppendUnescaped(%q): %v; encoding/json gives %q", body, err, want)
		}
		if kept[0] != 'x' {
			t.Fatalf("AppendUnescaped(%q) did not append: %q", body, kept)
		}
		kept = kept[1:]
		if got := replaceInvalid(kept); string(got) != want {
			t.Fatalf("AppendUnescaped(%q) = %q, encoding/json %q", body, kept, want)
		}
		if utf8.Valid(body) && string(kept) != want {
			t.Fatalf("AppendUnescaped(%q) = %q on UTF-8, encoding/json %q", body, kept, want)
		}
		if got := Unquote(nil, body, bytes.IndexByte(body, '\\') >= 0); string(got) != want {
			t.Fatalf("Unquote(%q) = %q, encoding/json %q", body, got, want)
		}
		limit = limit & 0xff
		pre, err := AppendUnescapedPrefix(nil, body, limit)
		if err != nil || !bytes.HasPrefix(kept, pre) || len(pre) < min(limit, len(kept)) {
			t.Fatalf("AppendUnescapedPrefix(%q, %d) = %q, %v; the whole is %q", body, limit, pre, err, kept)
		}
	})
}
