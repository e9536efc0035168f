package search

import (
	"bytes"
	"unicode/utf8"
)

// textMatcher finds a term in decoded text (a content string, a line of a
// stored tool result) under full Unicode case folding, as the raw
// matchers do. It reports where each occurrence lies in the text, for
// --matches.
type textMatcher struct {
	// ascii: the folded term is ASCII and no other character folds into
	// it (newMatcher gives it the ASCII matcher), so lowering ASCII text
	// is its folding; other text is folded only when it is not ASCII.
	ascii     bool
	asciiText bool   // the folded term is ASCII: ASCII text is lowered, not folded
	needle    []byte // the term folded
}

func newTextMatcher(term string) *textMatcher {
	fm := newFoldMatcher(term)
	return &textMatcher{
		ascii:     fm.ascii != nil && len(fm.sources) == 0,
		asciiText: fm.ascii != nil,
		needle:    fm.folded,
	}
}

// textScratch holds a worker's buffers for textMatcher.
type textScratch struct {
	folded []byte
	offs   []int
}

// each calls fn with the byte range of every occurrence in text, left to
// right and not overlapping, until fn returns false. An occurrence under
// full folding covers the whole characters whose foldings it touches.
func (m *textMatcher) each(text []byte, sc *textScratch, fn func(start, end int) bool) {
	if m.ascii || (m.asciiText && asciiBytes(text)) {
		sc.folded = append(sc.folded[:0], text...)
		for i, c := range sc.folded {
			sc.folded[i] = lowerASCII(c)
		}
		for from := 0; ; {
			i := bytes.Index(sc.folded[from:], m.needle)
			if i < 0 {
				return
			}
			s := from + i
			from = s + len(m.needle)
			if !fn(s, from) {
				return
			}
		}
	}
	sc.folded, sc.offs = appendFoldOffsets(sc.folded[:0], sc.offs[:0], text)
	for from := 0; ; {
		i := bytes.Index(sc.folded[from:], m.needle)
		if i < 0 {
			return
		}
		f := from + i
		last := sc.offs[f+len(m.needle)-1]
		_, size := utf8.DecodeRune(text[last:])
		from = f + len(m.needle)
		// Go on after the character the occurrence ends in.
		for from < len(sc.offs) && sc.offs[from] == last {
			from++
		}
		if !fn(sc.offs[f], last+size) {
			return
		}
	}
}

// contains reports whether text holds the term.
func (m *textMatcher) contains(text []byte, sc *textScratch) bool {
	found := false
	m.each(text, sc, func(int, int) bool { found = true; return false })
	return found
}

// appendFoldOffsets is appendFold that also appends, for each folded
// byte, the offset in src of the character it comes from.
func appendFoldOffsets(dst []byte, offs []int, src []byte) ([]byte, []int) {
	for i := 0; i < len(src); {
		c := src[i]
		if c < utf8.RuneSelf {
			dst = append(dst, lowerASCII(c))
			offs = append(offs, i)
			i++
			continue
		}
		n := len(dst)
		var size int
		dst, size = appendFoldRune(dst, src[i:])
		for range len(dst) - n {
			offs = append(offs, i)
		}
		i += size
	}
	return dst, offs
}

// snippet cuts text to ctx characters either side of [start, end) and
// returns the cut with the occurrence's offsets in it, in characters
// (code points: each byte of invalid UTF-8 counts one, as it is written
// as U+FFFD).
func snippet(text []byte, start, end, ctx int) (string, int, int) {
	a := start
	for n := 0; n < ctx && a > 0; n++ {
		_, size := utf8.DecodeLastRune(text[:a])
		a -= size
	}
	b := end
	for n := 0; n < ctx && b < len(text); n++ {
		_, size := utf8.DecodeRune(text[b:])
		b += size
	}
	s := utf8.RuneCount(text[a:start])
	return string(text[a:b]), s, s + utf8.RuneCount(text[start:end])
}
