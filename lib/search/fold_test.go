package search

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFoldRune(t *testing.T) {
	tests := []struct {
		in   rune
		want string
	}{
		{'A', "a"},
		{'a', ""},
		{'ß', "ss"},
		{'ẞ', "ss"},
		{'Σ', "σ"},
		{'ς', "σ"},
		{'ﬁ', "fi"},
		{'K', "k"}, // KELVIN SIGN
		{'ſ', "s"},
		{'İ', "i\u0307"},
		{'ΐ', "\u03b9\u0308\u0301"},
		{'Ꭰ', ""},  // Cherokee capitals are the fold target
		{'ꭰ', "Ꭰ"}, // and the small letters fold to them
		{'𐐀', "𐐨"}, // Deseret, outside the BMP
		{'\u0130', "i\u0307"},
	}
	for _, tt := range tests {
		if got := foldRune(tt.in); got != tt.want {
			t.Errorf("foldRune(%U) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAppendFoldBroken(t *testing.T) {
	tests := []struct{ in, want string }{
		{"STRAẞE", "strasse"},
		{"a\xffb", "a\xffb"},
		{"\xc3", "\xff"}, // a cut sequence
		{"\xe2\x82\xe2\x82\xac", "\xff\xff€"},
		{"\xed\xa0\x80", "\xff\xff\xff"}, // a surrogate is not UTF-8
		{"\xc0\xaf", "\xff\xff"},         // nor is an overlong form
	}
	for _, tt := range tests {
		if got := string(appendFold(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("appendFold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestFoldMatchesPython folds many random strings both here and with
// python3's str.casefold, the behaviour cc-grep promises.
func TestFoldMatchesPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	ver, err := exec.Command(py, "-c", "import unicodedata; print(unicodedata.unidata_version)").Output()
	if err != nil || strings.TrimSpace(string(ver)) != foldUnicodeVersion {
		t.Skipf("python3 has Unicode %q, the table %s", strings.TrimSpace(string(ver)), foldUnicodeVersion)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	// Ranges with many case pairs and special foldings, plus anything.
	ranges := [][2]rune{{0x20, 0x7e}, {0xa0, 0x24f}, {0x370, 0x3ff}, {0x400, 0x52f}, {0x530, 0x58f},
		{0x1e00, 0x1fff}, {0x2100, 0x218f}, {0x2c00, 0x2c7f}, {0xa640, 0xa7ff}, {0xab70, 0xabbf},
		{0xfb00, 0xfb17}, {0xff00, 0xff5f}, {0x10400, 0x1044f}, {0x1e900, 0x1e94f}, {0, 0x10ffff}}
	var in []string
	for range 4000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			rg := ranges[rng.IntN(len(ranges))]
			r := rg[0] + rune(rng.IntN(int(rg[1]-rg[0]+1)))
			if !utf8.ValidRune(r) {
				r = 'x'
			}
			b.WriteRune(r)
		}
		in = append(in, b.String())
	}
	payload, _ := json.Marshal(in)
	cmd := exec.Command(py, "-c", "import json,sys; print(json.dumps([s.casefold() for s in json.load(sys.stdin)]))")
	cmd.Stdin = bytes.NewReader(payload)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var want []string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for i, s := range in {
		if got := string(appendFold(nil, []byte(s))); got != want[i] {
			t.Errorf("fold(%+q) = %+q, python %+q", s, got, want[i])
		}
	}
}
