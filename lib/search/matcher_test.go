package search

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ccpipe/ccpipe/lib/bytescan"
)

// naiveContains is the reference: fold everything, then bytes.Contains.
// It decodes with range over a string, a different path from appendFold.
func naiveContains(term string, text []byte) bool {
	fold := func(s string) []byte {
		var out []byte
		for i, r := range s {
			switch {
			case r == '\uFFFD' && !strings.HasPrefix(s[i:], "\uFFFD"):
				out = append(out, brokenByte)
			case foldRune(r) != "":
				out = append(out, foldRune(r)...)
			default:
				out = append(out, string(r)...)
			}
		}
		return out
	}
	return bytes.Contains(fold(string(text)), fold(term))
}

var matchTests = []struct {
	term, text string
	want       bool
}{
	{"flaky", "the FLAKY test", true},
	{"Flaky", "the flaky test", true},
	{"flaky", "the flak y test", false},
	{"a1-B", "xxA1-bxx", true},
	{"x", "X", true},
	{"xy", "x", false},
	{"straße", "STRASSE", true},
	{"STRASSE", "straße", true}, // full folding for ASCII terms too (rg -i: no)
	{"strasse", "STRAẞE", true},
	{"file", "ﬁle", true},
	{"FILE", "proﬁle", true},
	{"kelvin", "\u212aelvin", true}, // KELVIN SIGN folds to k
	{"kelvin", "\u212aelvim", false},
	{"sea", "ſea", true},    // long s
	{"tea", "ﬅea", true},    // ﬅ folds to "st"
	{"xtea", "xﬅea", false}, // its s is not the term's
	{"data", "datẚ", true},  // ẚ folds to "aʾ": it can end the term
	{"datax", "datẚx", false},
	{"istanbul", "İstanbul", false}, // İ folds to "i̇": a dot between
	{"i", "İ", true},
	{"i", "ı", false}, // dotless i folds to itself (no Turkish folding)
	{"error", "ERROR", true},
	{"STRAẞE", "strasse", true},
	{"straße", "Straße", true},
	{"ΣΊΣΥΦΟΣ", "ο σίσυφος", true},
	{"σίσυφος", "ΣΊΣΥΦΟΣ", true},
	{"σίσυφοσ", "σίσυφος", true}, // final sigma
	{"ﬁle", "FILE", true},
	{"ﬁle", "ﬁle", true},
	{"ﬁle", "fi le", false},
	{"Kelvin", "kelvin", true}, // KELVIN SIGN
	{"ǰ", "J\u030c", true},
	{"İ", "i\u0307", true},
	{"ÉTÉ", "un été", true},
	{"été", "ete", false},
	{"σς", "σ\x80ς", false},         // no match across a broken sequence
	{"straße", "stra\xc3ße", false}, // a cut sequence inside
	{"€", "\xe2\x82\xe2\x82\xac", true},
	{"€", "\xe2\x82", false},
	{"日本", "にほん日本語", true},
	{"ÿ", "Ÿ", true},
	// Dense non-ASCII text: the one pass for non-ASCII bytes gives way to
	// a pass per lead byte.
	{"straße", strings.Repeat("日本", 200) + "Straße", true},
	{"straße", strings.Repeat("日本", 200) + "Strasze", false},
	{"σίσυφος", strings.Repeat("ж", 500) + "ΣΊΣΥΦΟΣ", true},
}

// eachVector runs f with and without the AVX2 scan, which changes the
// matcher an ASCII term of letters gets.
func eachVector(t *testing.T, f func(t *testing.T)) {
	defer bytescan.SetAVX2(true)()
	for _, avx := range []bool{true, false} {
		if avx && !bytescan.AVX2() {
			continue
		}
		bytescan.SetAVX2(avx)
		t.Run(map[bool]string{true: "AVX2", false: "noAVX2"}[avx], f)
	}
}

func TestMatchers(t *testing.T) { eachVector(t, testMatchers) }

func testMatchers(t *testing.T) {
	for _, tt := range matchTests {
		var scratch []byte
		m := newMatcher(tt.term)
		if got := m.find([]byte(tt.text), &scratch); got != tt.want {
			t.Errorf("find(%q in %q) = %v, want %v", tt.term, tt.text, got, tt.want)
		}
		if got := naiveContains(tt.term, []byte(tt.text)); got != tt.want {
			t.Errorf("naiveContains(%q in %q) = %v, want %v", tt.term, tt.text, got, tt.want)
		}
	}
}

// feedAll runs the chunked read loop over text with a tiny buffer.
func feedAll(t testing.TB, term string, text []byte, bufSize int) bool {
	s, err := New(Options{Raw: true, Terms: []string{term}, BufSize: bufSize})
	if err != nil {
		t.Fatal(err)
	}
	sc := s.NewScanner()
	found := false
	var res Result
	_, _, err = sc.feed(context.Background(), bytes.NewReader(text), &res, func(buf []byte) bool {
		found = s.ms[0].find(buf, &sc.scratch)
		return found
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestStraddle puts the term at every offset of the input and reads it with
// buffers of every small size, so that every cut through the term is met.
func TestStraddle(t *testing.T) { eachVector(t, testStraddle) }

func testStraddle(t *testing.T) {
	for _, term := range []string{"needle", "Straße", "ΣΊΣΥΦΟΣ", "ﬁx"} {
		hit := map[string]string{"needle": "NeEdLe", "Straße": "STRASSE", "ΣΊΣΥΦΟΣ": "σίσυφος", "ﬁx": "FIX"}[term]
		for pos := 0; pos < 40; pos++ {
			text := []byte(strings.Repeat("é.", 20)[:pos] + hit + strings.Repeat("-", 17))
			for bs := 1; bs <= 24; bs++ {
				if !feedAll(t, term, text, bs) {
					t.Fatalf("%q at %d with a %d-byte buffer: not found", term, pos, bs)
				}
			}
			if feedAll(t, term, text[:len(text)-17-1], 5) {
				t.Fatalf("%q found in a cut copy", term)
			}
		}
	}
}

func FuzzMatch(f *testing.F) {
	for _, tt := range matchTests {
		f.Add(tt.term, []byte(tt.text), uint8(3))
	}
	f.Add("ss", []byte("xxßxx"), uint8(1))
	f.Add("ǰ", []byte("\xcc\x8cJ\u030c"), uint8(2))
	f.Fuzz(func(t *testing.T, term string, text []byte, bs uint8) {
		if term == "" || !utf8.ValidString(term) {
			return
		}
		want := naiveContains(term, text)
		defer bytescan.SetAVX2(true)()
		for _, avx := range []bool{bytescan.AVX2(), false} {
			bytescan.SetAVX2(avx)
			var scratch []byte
			if got := newMatcher(term).find(text, &scratch); got != want {
				t.Fatalf("find(%q in %q), AVX2 %v = %v, naive %v", term, text, avx, got, want)
			}
			if got := feedAll(t, term, text, 1+int(bs%64)); got != want {
				t.Fatalf("chunked find(%q in %q, buffer %d), AVX2 %v = %v, naive %v", term, text, 1+bs%64, avx, got, want)
			}
		}
	})
}

// TestRequiredRun: the run every occurrence holds in ASCII.
func TestRequiredRun(t *testing.T) {
	for _, tt := range []struct {
		folded, want string
		at           int
	}{
		{"strasse", "ra", 2},             // s (ſ, ß), t (ﬅ, ﬆ) and e... can come from other characters
		{"flaky", "a", 2},                // ﬂ gives fl, K (Kelvin) k, ẙ "y" and a ring
		{"qzvandalpha", "qzvandalph", 0}, // ẚ folds to "aʾ": it can end the term
		{"flakytest", "yte", 4},
	} {
		if got, at := requiredRun(tt.folded); got != tt.want || at != tt.at {
			t.Errorf("requiredRun(%q) = %q at %d, want %q at %d", tt.folded, got, at, tt.want, tt.at)
		}
	}
}

// TestRequiredRunRandom checks the fold matchers that scan for a required
// run against the reference, on random text made of the characters that
// fold into the terms' letters.
func TestRequiredRunRandom(t *testing.T) {
	alphabet := []string{"s", "S", "ſ", "ß", "ẞ", "t", "T", "ﬅ", "ﬆ", "r", "R", "a", "A", "ẚ", "e", "E", "ä", "k", "K", "\u212a", " ", "\xc3", "\n"}
	terms := []string{"straße", "STRAẞE", "ſtraſſe", "ﬆraße", "maß", "\u212araß", "STRASSE", "trakt", "karate", "tear"}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, term := range terms {
		m := newMatcher(term)
		var scratch []byte
		for range 3000 {
			var b strings.Builder
			for range rng.IntN(40) {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			text := []byte(b.String())
			if got, want := m.find(text, &scratch), naiveContains(term, text); got != want {
				t.Fatalf("find(%q in %q) = %v, naive %v", term, text, got, want)
			}
		}
	}
}

// TestFoldSourcesInverse: foldSources(c) is the inverse of the fold table
// at c, in table order, each source once, c itself when it folds to
// itself, for every character a folding holds and a few that none does.
func TestFoldSourcesInverse(t *testing.T) {
	inverse := map[rune][]rune{}
	for _, p := range foldPairs {
		for _, r := range p.fold {
			if !slices.Contains(inverse[r], p.r) {
				inverse[r] = append(inverse[r], p.r)
			}
		}
	}
	cs := []rune{'Q', '1', '\u00df', 0x10FFFF}
	for r := range inverse {
		cs = append(cs, r)
	}
	for _, c := range cs {
		want := slices.Clone(inverse[c])
		if foldRune(c) == "" {
			want = append(want, c)
		}
		if got := foldSources(c); !slices.Equal(got, want) {
			t.Errorf("foldSources(%U) = %U, want %U", c, got, want)
		}
	}
	if len(inverse) < 1000 {
		t.Fatalf("the fold table's foldings hold %d characters: not the table", len(inverse))
	}
}
