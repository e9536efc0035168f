package secrets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A key with terminal colour inside (grep --color=always), an OSC 8 link
// around it, or an invisible character in it is still found, and its
// redaction covers every byte of it, escapes included.
func TestSeesThroughEscapes(t *testing.T) {
	key := "sk-ant-api03-" + fake(7, urlb64, 93) + "AA"
	for _, tc := range []struct{ name, text string }{
		{"grep colour around the prefix", "ANTHROPIC_API_KEY=\x1b[01;31m\x1b[Ksk-ant\x1b[m\x1b[K" + key[len("sk-ant"):]},
		{"colour inside the keyword", "KEY=sk-\x1b[01;31mant\x1b[m" + key[len("sk-ant"):]},
		{"OSC 8 link", "\x1b]8;;https://example.com\x07" + key[:20] + "\x1b]8;;\x1b\\" + key[20:]},
		{"zero-width space", key[:15] + "\u200b" + key[15:]},
		{"BOM and soft hyphen", "\ufeff" + key[:30] + "\u00ad" + key[30:]},
		{"8-bit CSI", key[:25] + "\u009b1m" + key[25:]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := Default.FindString(tc.text)
			if len(ms) != 1 || ms[0].Kind != "anthropic-api-key" {
				t.Fatalf("found %v", ms)
			}
			out, _ := Default.ReplaceString(tc.text)
			for _, part := range []string{key[13:40], key[60:]} {
				if strings.Contains(out, part) {
					t.Fatalf("a part of the key is left: %q", out)
				}
			}
			if !Default.MayMatch([]byte(tc.text)) {
				t.Error("MayMatch says no")
			}
			// In a JSON string (escaped as JSON writes control bytes).
			line, _ := json.Marshal(map[string]string{"stdout": tc.text})
			red, jm, err := Default.RedactJSON(nil, line)
			if err != nil || len(jm) != 1 || strings.Contains(string(red), key[60:]) {
				t.Fatalf("JSON: %v %v %s", jm, err, red)
			}
		})
	}
	// Plain text keeps its offsets; a lone ESC swallows nothing visible.
	plain := "x \x1b" + key
	if ms := Default.FindString(plain); len(ms) != 1 || ms[0].Start != 3 || ms[0].End != len(plain) {
		t.Fatalf("after a lone ESC: %v", ms)
	}
}

func FuzzVisible(f *testing.F) {
	f.Add([]byte("a\x1b[31mb\u200bc\x1b]8;;x\x07d"))
	f.Fuzz(func(t *testing.T, b []byte) {
		first := invisibleAt(b)
		if first < 0 {
			return
		}
		text, at := visible(b, first, false)
		owned := bytes.Clone(b)
		if inPlace, at2 := visible(owned, first, true); !bytes.Equal(inPlace, text) || fmt.Sprint(at2) != fmt.Sprint(at) {
			t.Fatalf("in place: %q %v, copied: %q %v", inPlace, at2, text, at)
		}
		for k := range text {
			if b[at.orig(k)] != text[k] || k > 0 && at.orig(k) <= at.orig(k-1) {
				t.Fatalf("byte %d mapped wrong", k)
			}
		}
	})
}
