package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestHitCut: a hit's cell is cut around the hit at every width, the hit
// whole while it fits (never cut before it, as a cut from the right
// would at 60 columns), the text either side sharing what is left; on a
// terminal with colour the hit is marked, without colour (NO_COLOR, a
// pipe) no escape is written.
func TestHitCut(t *testing.T) {
	layout := &Layout{Columns: []Column{
		{Head: "Where", Keys: []string{"where"}},
		{Head: "Snippet", Keys: []string{"snippet"}, Hit: [2]string{"match_start", "match_end"}},
	}}
	snip := strings.Repeat("before the word ", 6) + "NEEDLE" + strings.Repeat(" and after it", 6)
	start := strings.Index(snip, "NEEDLE")
	rec := func(s string, a, b int) string {
		j, _ := json.Marshal(map[string]any{"where": "text", "snippet": s, "match_start": a, "match_end": b})
		return string(j)
	}
	recs := []string{
		rec(snip, start, start+6),
		rec("NEEDLE at the start, then a long tail of words to cut off", 0, 6),
		rec("a long head of words to cut off, then at the end NEEDLE", 49, 55),
		rec("two\nlines, NEEDLE\tafter a tab", 11, 17),
	}
	for width := 20; width <= 160; width++ {
		_, out, _ := table(t, term(width, "NO_COLOR", "1"), layout, recs)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 1+len(recs) {
			t.Fatalf("width %d: %d lines:\n%s", width, len(lines), out)
		}
		for _, l := range lines[1:] {
			if !strings.Contains(l, "NEEDLE") || utf8.RuneCountInString(l) > width || strings.Contains(l, "\x1b") {
				t.Errorf("width %d: %q", width, l)
			}
		}
		// The first hit is centred: what is left either side differs by
		// at most the … and one column.
		cell := lines[1][strings.Index(lines[1], "  ")+2:]
		cell = strings.TrimLeft(cell, " ")
		i := strings.Index(cell, "NEEDLE")
		before, after := utf8.RuneCountInString(cell[:i]), utf8.RuneCountInString(cell[i+6:])
		if len(snip) > width && (before-after > 1 || after-before > 1) {
			t.Errorf("width %d: not centred (%d before, %d after): %q", width, before, after, cell)
		}
	}
	_, out, _ := table(t, term(40), layout, recs)
	if !strings.Contains(out, hitMark+"NEEDLE"+hitEnd) || strings.Count(out, hitMark) != len(recs) {
		t.Errorf("on a terminal with colour each hit is marked:\n%q", out)
	}
	if strings.Contains(out, "two\nlines") || !strings.Contains(out, "two lines, "+hitMark+"NEEDLE"+hitEnd+"→after") {
		t.Errorf("the hit's cell keeps the one rule for line breaks and tabs:\n%q", out)
	}
	_, out, _ = table(t, term(0), layout, recs, "--format", "table")
	if strings.Contains(out, "\x1b") || !strings.Contains(out, snip) {
		t.Errorf("into a pipe: no mark, not cut:\n%q", out)
	}
}
