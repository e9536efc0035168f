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
// filtered on their raw bytes, searched with the raw matcher) and without
// (every content string decoded and folded whole) and fails when they
// differ.
func regionHoldsBoth(t *testing.T, terms []string, region []byte) (found bool) {
	t.Helper()
	s, err := New(Options{Terms: terms})
	if err != nil {
		t.Fatal(err)
	}
	sc := s.NewScanner()
	for ti := range terms {
		slowContent = false
		fast := sc.RegionHolds(region, KindTranscript, ti)
		slowContent = true
		slow := sc.RegionHolds(region, KindTranscript, ti)
		slowContent = false
		if fast != slow {
			t.Fatalf("term %q in %q: fast %v, slow %v", terms[ti], region, fast, slow)
		}
		found = found || fast
	}
	return found
}

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
		if regionHoldsBoth(t, []string{term}, append(line, '\n')) {
			hits++
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
	if hits < 500 {
		t.Errorf("only %d regions held their term: the test means little", hits)
	}
}
