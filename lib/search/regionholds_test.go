package search

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// regionHoldsBoth asks regionHolds with its fast path (content strings
// filtered on their raw bytes, searched with the raw matcher, the other
// terms looked for on the way) and without (every content string decoded
// and folded whole, one term at a time) and fails when they differ, or
// when a term seen on the way is not in the region's content.
func regionHoldsBoth(t *testing.T, terms []string, region []byte) (found bool) {
	t.Helper()
	s, err := New(Options{Terms: terms})
	if err != nil {
		t.Fatal(err)
	}
	sc := s.NewScanner()
	slow := make([]bool, len(terms))
	slowContent = true
	for ti := range terms {
		slow[ti] = sc.RegionHolds(region, KindTranscript, ti)
	}
	slowContent = false
	for ti := range terms {
		if fast := sc.RegionHolds(region, KindTranscript, ti); fast != slow[ti] {
			t.Fatalf("term %q in %q: fast %v, slow %v", terms[ti], region, fast, slow[ti])
		}
		also := make([]bool, len(terms))
		if fast := sc.RegionHoldsAlso(region, KindTranscript, ti, also); fast != slow[ti] {
			t.Fatalf("term %q in %q, others along: fast %v, slow %v", terms[ti], region, fast, slow[ti])
		}
		for tj, f := range also {
			if f && !slow[tj] {
				t.Fatalf("term %q in %q: seen on the way to %q, but not there", terms[tj], region, terms[ti])
			}
			if f {
				alsoSeen++
			}
		}
		found = found || slow[ti]
	}
	return found
}

// alsoSeen counts the terms RegionHoldsAlso saw on the way to another.
var alsoSeen int

// foldTricky are characters whose folding is not ASCII lowering, or
// gives ASCII letters: they make the fold matcher fold, and escapes
// make the decoded string differ from its raw bytes.
var foldTricky = []string{"ß", "ẞ", "İ", "ı", "\u212a", "ſ", "ﬁ", "ﬅ", "ẚ", "Σ", "ς", "σ", "é", "É", "\u0307",
	"\n", "\t", "\"", "\\", "/", "<", "\u2028", "\x01", "日本", "\xff", "\xc3"}

// TestRegionHoldsFastIsSlow holds regionHolds' fast path to its slow
// twin: on every line of the real corpus with terms cut from its own
// content, case changed, and on generated records of every content place
// whose strings are dense in escapes and characters with special
// foldings.
func TestRegionHoldsFastIsSlow(t *testing.T) {
	alsoSeen = 0
	rng := rand.New(rand.NewPCG(37, 2))
	hits := 0
	// Generated records.
	word := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			if rng.IntN(3) == 0 {
				b.WriteString(foldTricky[rng.IntN(len(foldTricky))])
			} else {
				b.WriteByte("abcdefiksStxKIS "[rng.IntN(16)])
			}
		}
		return b.String()
	}
	for range 3000 {
		texts := make([]string, 1+rng.IntN(4))
		for i := range texts {
			texts[i] = word() + word() + word()
		}
		var rec any
		switch rng.IntN(4) {
		case 0:
			rec = map[string]any{"type": "user", "message": map[string]any{"content": texts[0]}}
		case 1:
			blocks := []any{}
			for _, x := range texts {
				blocks = append(blocks, map[string]any{"type": "text", "text": x})
			}
			rec = map[string]any{"type": "assistant", "message": map[string]any{"content": blocks}}
		case 2:
			rec = map[string]any{"type": "assistant", "message": map[string]any{"content": []any{
				map[string]any{"type": "tool_use", "id": "t1", "name": "Bash", "input": map[string]any{"command": texts[0], "args": texts}}}}}
		default:
			rec = map[string]any{"type": "attachment", "attachment": map[string]any{"type": "hook_success", "content": texts[0], "stdout": " " + texts[0] + " ", "stderr": texts[len(texts)-1]}}
		}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		if rng.IntN(3) == 0 {
			// Some of its f, K and / written as escapes (no key holds
			// them): a byte of a term hidden from the raw bytes.
			var b []byte
			for _, c := range line {
				switch {
				case c == 'f' && rng.IntN(2) == 0:
					b = append(b, `\u0066`...)
				case c == 'K' && rng.IntN(2) == 0:
					b = append(b, `\u004B`...)
				case c == '/' && rng.IntN(2) == 0:
					b = append(b, `\/`...)
				default:
					b = append(b, c)
				}
			}
			line = b
		}
		// A term from the text (often found), case changed, or random.
		src := texts[rng.IntN(len(texts))]
		term := word()
		if rng.IntN(2) == 0 && len(src) > 1 {
			i := rng.IntN(len(src) - 1)
			term = src[i : i+1+rng.IntN(min(8, len(src)-i-1))]
			if rng.IntN(2) == 0 {
				term = strings.ToUpper(term)
			}
		}
		if term == "" || !utf8.ValidString(term) {
			continue
		}
		terms := []string{term}
		if rng.IntN(2) == 0 {
			// A second term from another text of the record, or random.
			t2 := word()
			if src := texts[rng.IntN(len(texts))]; rng.IntN(2) == 0 && len(src) > 1 {
				i := rng.IntN(len(src) - 1)
				t2 = strings.ToLower(src[i : i+1+rng.IntN(min(4, len(src)-i-1))])
			}
			if t2 != "" && utf8.ValidString(t2) {
				terms = append(terms, t2)
			}
		}
		if regionHoldsBoth(t, terms, append(line, '\n')) {
			hits++
		}
	}
	// A term whose bytes the content writes as escapes only, its raw
	// bytes elsewhere in the line (a candidate line): found, both ways.
	for _, term := range []string{"fork", "KELVIN", "a/b", "ff", "sfx", "\u0066"} {
		esc := strings.NewReplacer("f", `\u0066`, "K", `\u004b`, "/", `\/`, `\`, `\\`).Replace("x " + term + " y")
		line := []byte(`{"type":"user","uuid":"` + term + `","message":{"content":[{"type":"text","text":"` + esc + `"}]}}` + "\n")
		if !regionHoldsBoth(t, []string{term, "x"}, line) {
			t.Errorf("%q not found in %s", term, line)
		}
	}
	// The real corpus: terms cut from each line's own content.
	for _, tr := range corpusTranscripts(t) {
		f, err := os.Open(tr)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			line := sc.Bytes()
			var texts [][]byte
			if err := EachContent(line, func(text []byte) { texts = append(texts, append([]byte(nil), text...)) }); err != nil || len(texts) == 0 {
				continue
			}
			src := texts[rng.IntN(len(texts))]
			if len(src) < 2 {
				continue
			}
			i := rng.IntN(len(src) - 1)
			term := string(src[i : i+1+rng.IntN(min(12, len(src)-i-1))])
			if rng.IntN(2) == 0 {
				term = strings.ToUpper(term)
			}
			if term == "" || !utf8.ValidString(term) {
				continue
			}
			if regionHoldsBoth(t, []string{term, "zz" + term}, append(append([]byte(nil), line...), '\n')) {
				hits++
			}
		}
		f.Close()
	}
	if hits < 500 || alsoSeen < 100 {
		t.Errorf("only %d regions held their term, %d terms seen on the way to another: the test means little", hits, alsoSeen)
	}
}
