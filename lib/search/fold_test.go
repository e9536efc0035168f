package search

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"
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

// TestFoldMatchesPython cross-checks the table against python3's
// str.casefold, where python3 is installed: every folding Python knows is
// in the table, and every entry of the table is what Python folds it to,
// for the code points assigned in Python's Unicode version (the table's
// may be newer).
func TestFoldMatchesPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed (TestFoldTable still checks the table)")
	}
	const script = `import json, sys, unicodedata
mine = json.load(sys.stdin)
folds = {}
for cp in range(0x110000):
    if 0xD800 <= cp <= 0xDFFF:
        continue
    c = chr(cp)
    if c.casefold() != c:
        folds[cp] = c.casefold()
table = {cp: (unicodedata.category(chr(cp)) != "Cn", chr(cp).casefold()) for cp in mine}
print(json.dumps({"version": unicodedata.unidata_version, "folds": folds, "table": table}))`
	var mine []rune
	for _, p := range foldPairs {
		mine = append(mine, p.r)
	}
	payload, _ := json.Marshal(mine)
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = bytes.NewReader(payload)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var got struct {
		Version string
		Folds   map[rune]string
		Table   map[rune][2]any
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	t.Logf("python3 Unicode %s, table %s", got.Version, foldUnicodeVersion)
	for r, want := range got.Folds {
		if f := foldRune(r); f != want {
			t.Errorf("U+%04X: table %+q, python %+q", r, f, want)
		}
	}
	for _, p := range foldPairs {
		e := got.Table[p.r]
		if assigned, _ := e[0].(bool); assigned && e[1] != p.fold {
			t.Errorf("U+%04X: table %+q, python %+q", p.r, p.fold, e[1])
		}
	}
}

// TestLowerASCII8 checks the eight-byte lowercasing against the byte
// loop for every ASCII byte in every lane.
func TestLowerASCII8(t *testing.T) {
	for c := 0; c < 0x80; c++ {
		for lane := 0; lane < 8; lane++ {
			var b [8]byte
			for i := range b {
				b[i] = byte('a' + i)
			}
			b[lane] = byte(c)
			got := appendFold(nil, b[:])
			for i, x := range b {
				if got[i] != lowerASCII(x) {
					t.Fatalf("appendFold(%q) = %q", b[:], got)
				}
			}
		}
	}
}
