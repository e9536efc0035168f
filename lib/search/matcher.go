package search

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sync"
	"unicode/utf8"
)

// matcher reports whether one term occurs in a buffer. A matcher is shared
// by all workers; scratch is the calling worker's own.
type matcher interface {
	find(buf []byte, scratch *[]byte) bool
	// overlap is how many bytes of a buffer's end the reader must carry
	// into the next buffer so that an occurrence cut by the boundary is
	// still seen whole.
	overlap() int
	// cost estimates how often the anchor bytes occur: the lower, the
	// fewer candidates, the faster the search.
	cost() int
}

// newMatcher returns the fast ASCII matcher for an ASCII term and the full
// Unicode case folding matcher for any other.
func newMatcher(term string) matcher {
	if isASCII(term) {
		return newASCIIMatcher(term)
	}
	return newFoldMatcher(term)
}

// asciiMatcher ignores ASCII case only. It looks for the term's rarest
// byte, in both cases, with bytes.IndexByte and checks the term around
// each hit.
//
// When even the rarest byte is common (a term of frequent letters), a hit
// every few bytes would cost a call each; such a term is searched instead
// for its two rarest bytes at once, 8 positions per step (findPair).
type asciiMatcher struct {
	lower   []byte // the term, ASCII letters lowercased
	anchor  int    // index in lower of the byte searched for
	lo, up  byte   // that byte in lower and upper case (equal for a non-letter)
	weight  int
	pair    bool // search the two rarest bytes at once
	anchor2 int  // index of the second rarest byte
}

// pairAbove is the anchor frequency (per million bytes) above which the
// pair search beats one bytes.IndexByte call per hit: a call and check
// cost about 50 ns, a pair step about 6 ns per 8 bytes (measured with
// BenchmarkFind* on transcript-like text).
const pairAbove = 1e6 * 6 / 8 / 50

func newASCIIMatcher(term string) *asciiMatcher {
	m := &asciiMatcher{lower: []byte(term)}
	for i, c := range m.lower {
		m.lower[i] = lowerASCII(c)
	}
	m.weight = -1
	for i, c := range m.lower {
		w := byteWeight(c)
		if u := upperASCII(c); u != c {
			w += byteWeight(u)
		}
		if m.weight < 0 || w < m.weight {
			m.anchor, m.lo, m.up, m.weight = i, c, upperASCII(c), w
		}
	}
	if n := len(m.lower); n >= 2 && m.weight > pairAbove {
		m.pair = true
		w2 := -1
		for i, c := range m.lower {
			w := byteWeight(c)
			if u := upperASCII(c); u != c {
				w += byteWeight(u)
			}
			if i != m.anchor && (w2 < 0 || w < w2) {
				m.anchor2, w2 = i, w
			}
		}
	}
	return m
}

// findPair looks for two bytes of the term at once, 8 positions per step
// (SWAR): the rarest byte and the second rarest, at their distance, both
// case-folded. A step with a candidate checks its 8 positions.
func (m *asciiMatcher) findPair(buf []byte) bool {
	const ones = 0x0101010101010101
	n := len(m.lower)
	a, b := m.anchor, m.anchor2
	if a > b {
		a, b = b, a
	}
	ca, cb := m.lower[a], m.lower[b]
	var ma, mb uint64
	if ca != upperASCII(ca) {
		ma = 0x20 * ones
	}
	if cb != upperASCII(cb) {
		mb = 0x20 * ones
	}
	wa, wb := uint64(ca)*ones, uint64(cb)*ones
	d := b - a
	last := len(buf) - n // the last start of a whole occurrence
	s := 0
	for ; s+a+d+8 <= len(buf) && s+7 <= last; s += 8 {
		x := (binary.LittleEndian.Uint64(buf[s+a:]) | ma) ^ wa
		y := (binary.LittleEndian.Uint64(buf[s+b:]) | mb) ^ wb
		z := x | y
		if (z-ones)&^z&(0x80*ones) == 0 {
			continue
		}
		for k := s; k < s+8; k++ {
			if equalFoldASCII(buf[k:k+n], m.lower) {
				return true
			}
		}
	}
	for ; s <= last; s++ {
		if equalFoldASCII(buf[s:s+n], m.lower) {
			return true
		}
	}
	return false
}

func (m *asciiMatcher) overlap() int { return len(m.lower) - 1 }
func (m *asciiMatcher) cost() int    { return m.weight }

func (m *asciiMatcher) find(buf []byte, _ *[]byte) bool {
	n := len(m.lower)
	if len(buf) < n {
		return false
	}
	if m.pair {
		return m.findPair(buf)
	}
	// hay holds every position the anchor byte can take in a whole
	// occurrence; a hit at hay[p] means an occurrence starting at buf[p].
	hay := buf[m.anchor : len(buf)-n+m.anchor+1]
	if m.lo == m.up {
		for p := 0; ; p++ {
			i := bytes.IndexByte(hay[p:], m.lo)
			if i < 0 {
				return false
			}
			p += i
			if equalFoldASCII(buf[p:p+n], m.lower) {
				return true
			}
		}
	}
	i1, i2 := bytes.IndexByte(hay, m.lo), bytes.IndexByte(hay, m.up)
	for i1 >= 0 || i2 >= 0 {
		if i2 < 0 || (i1 >= 0 && i1 < i2) {
			if equalFoldASCII(buf[i1:i1+n], m.lower) {
				return true
			}
			i1 = indexByteFrom(hay, i1+1, m.lo)
		} else {
			if equalFoldASCII(buf[i2:i2+n], m.lower) {
				return true
			}
			i2 = indexByteFrom(hay, i2+1, m.up)
		}
	}
	return false
}

// indexByteFrom is bytes.IndexByte(b[from:], c) in b's coordinates.
func indexByteFrom(b []byte, from int, c byte) int {
	i := bytes.IndexByte(b[from:], c)
	if i < 0 {
		return -1
	}
	return from + i
}

// equalFoldASCII reports whether s equals lower when ASCII letters in s are
// lowercased.
func equalFoldASCII(s, lower []byte) bool {
	for i, c := range s {
		if lowerASCII(c) != lower[i] {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// foldMatcher compares under full Unicode case folding. Every occurrence
// of the folded term either is made of ASCII input only, which an ASCII
// matcher of the folded term finds when it is all ASCII, or holds a
// non-ASCII character whose folding gives part of the term: a source. The
// matcher looks for the lead bytes of those sources with bytes.IndexByte
// (rare in most transcripts), checks that the character there is a
// source, and only then folds a window around it and looks for the folded
// term there. The window is wide enough for any occurrence through the
// hit: each input character yields at least one byte of the folded term
// and takes at most 4 bytes, and 3 more bytes let decoding that starts
// inside a character resynchronise before it matters.
type foldMatcher struct {
	folded  []byte        // the term's full case folding
	ascii   *asciiMatcher // for an all-ASCII folding: the ASCII-only occurrences
	sources []rune        // sorted non-ASCII characters that can start a candidate
	anchors []byte        // their lead bytes
	reach   int           // window bytes on each side of a hit
	weight  int
}

func newFoldMatcher(term string) *foldMatcher {
	m := &foldMatcher{folded: appendFold(nil, []byte(term))}
	m.reach = 4*len(m.folded) + utf8.UTFMax - 1
	if isASCII(string(m.folded)) {
		// Any character may be the non-ASCII one: take the sources of all.
		m.ascii = newASCIIMatcher(string(m.folded))
		for _, c := range string(m.folded) {
			m.addSources(foldSources(c))
		}
		m.weight = m.ascii.weight
	} else {
		// Some character of the folding is not ASCII, and so is each of its
		// sources: anchor on the one whose sources are rarest.
		best := -1
		var bestSrc []rune
		for _, c := range string(m.folded) {
			if c < utf8.RuneSelf {
				continue
			}
			src := foldSources(c)
			if w := leadWeight(src); best < 0 || w < best {
				best, bestSrc = w, src
			}
		}
		m.addSources(bestSrc)
	}
	slices.Sort(m.sources)
	m.weight += leadWeight(m.sources)
	return m
}

// addSources adds the non-ASCII characters of src and their lead bytes.
func (m *foldMatcher) addSources(src []rune) {
	for _, r := range src {
		if r < utf8.RuneSelf || slices.Contains(m.sources, r) {
			continue
		}
		m.sources = append(m.sources, r)
		var enc [utf8.UTFMax]byte
		utf8.EncodeRune(enc[:], r)
		if !slices.Contains(m.anchors, enc[0]) {
			m.anchors = append(m.anchors, enc[0])
		}
	}
}

// leadWeight estimates how often a lead byte of the characters occurs.
func leadWeight(src []rune) int {
	var seen []byte
	w := 0
	for _, r := range src {
		var enc [utf8.UTFMax]byte
		utf8.EncodeRune(enc[:], r)
		if !slices.Contains(seen, enc[0]) {
			seen = append(seen, enc[0])
			w += byteWeight(enc[0])
		}
	}
	return w
}

func (m *foldMatcher) overlap() int { return m.reach }
func (m *foldMatcher) cost() int    { return m.weight }

func (m *foldMatcher) find(buf []byte, scratch *[]byte) bool {
	if m.ascii != nil && m.ascii.find(buf, scratch) {
		return true
	}
	var next [8]int
	heads := next[:0]
	if len(m.anchors) > len(next) {
		heads = make([]int, 0, len(m.anchors))
	}
	for _, a := range m.anchors {
		heads = append(heads, bytes.IndexByte(buf, a))
	}
	checks, budget := 0, 16+len(buf)/(4*m.reach)
	for {
		k := -1
		for j, h := range heads {
			if h >= 0 && (k < 0 || h < heads[k]) {
				k = j
			}
		}
		if k < 0 {
			return false
		}
		p := heads[k]
		heads[k] = indexByteFrom(buf, p+1, m.anchors[k])
		if r, _ := utf8.DecodeRune(buf[p:]); !m.isSource(r) {
			continue
		}
		lo, hi := max(0, p-m.reach), min(len(buf), p+m.reach)
		if checks++; checks > budget {
			// Sources are dense (text in the term's script): fold the rest
			// once rather than a window per hit.
			hi = len(buf)
		}
		*scratch = appendFold((*scratch)[:0], buf[lo:hi])
		if bytes.Contains(*scratch, m.folded) {
			return true
		}
		if hi == len(buf) {
			return false
		}
	}
}

func (m *foldMatcher) isSource(r rune) bool {
	_, ok := slices.BinarySearch(m.sources, r)
	return ok
}

var (
	foldInverseOnce sync.Once
	foldInverse     map[rune][]rune
)

// foldSources lists every character whose full case folding contains the
// folded character c, c itself included.
func foldSources(c rune) []rune {
	foldInverseOnce.Do(func() {
		foldInverse = make(map[rune][]rune)
		for _, p := range foldPairs {
			for _, r := range p.fold {
				if !slices.Contains(foldInverse[r], p.r) {
					foldInverse[r] = append(foldInverse[r], p.r)
				}
			}
		}
	})
	src := slices.Clone(foldInverse[c])
	if foldRune(c) == "" {
		src = append(src, c)
	}
	return src
}
