package search

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"unicode/utf8"

	"github.com/ccpipe/ccpipe/lib/bytescan"
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

// newMatcher returns the matcher of a term under full Unicode case
// folding (fold.go): the ASCII matcher alone for a term that only ASCII
// text can hold (its folding is ASCII and no other character folds to
// letters that fit in it: "error", "json"), else a fold matcher.
func newMatcher(term string) matcher {
	m := newFoldMatcher(term)
	if m.ascii != nil && len(m.sources) == 0 {
		return m.ascii
	}
	return m
}

// asciiMatcher finds an ASCII term in ASCII text, ignoring ASCII case:
// the whole match for a term no other character can help form, and the
// first pass of a fold matcher for any other ASCII folding. It searches for two of the term's
// rarest bytes at their distance, both ignoring case, 32 positions per
// step (bytescan.IndexPair, AVX2), and checks the term where both occur.
//
// Without AVX2 that scan is slower than bytes.IndexByte, and is kept for a
// term whose rarest byte is common (a hit every few bytes would cost a
// call each); any other term is looked for by its rarest byte, in both
// cases, and checked around each hit.
type asciiMatcher struct {
	lower   []byte // the term, ASCII letters lowercased
	anchor  int    // index in lower of the byte searched for
	lo, up  byte   // that byte in lower and upper case (equal for a non-letter)
	weight  int
	pair    bool // search the two rarest bytes at once
	anchor2 int  // index of the second rarest byte (anchor for a 1-byte term)
}

// pairAbove is the anchor frequency (per million bytes, both cases) above
// which the SSE2 pair search beats bytes.IndexByte: a call and check cost
// about 20 ns per hit, a pair step about 3 ns per 32 bytes more than
// IndexByte (measured with BenchmarkFind* and BenchmarkCorpus).
const pairAbove = 4000

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
	if bytescan.AVX2() || m.weight > pairAbove {
		m.pair = true
		m.anchor2 = m.anchor
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

// indexPair finds the term through the positions where its two rarest
// bytes both occur (see bytescan.IndexPair).
func (m *asciiMatcher) indexPair(buf []byte) int {
	n := len(m.lower)
	a, b := m.anchor, m.anchor2
	if a > b {
		a, b = b, a
	}
	ca, cb := m.lower[a], m.lower[b]
	// hay[i] is buf[i+a]: a hit at i is an occurrence starting at buf[i].
	hay := buf[a : len(buf)-n+b+1]
	for i := 0; ; i++ {
		j := bytescan.IndexPair(hay[i:], b-a, ca, cb, bytescan.CaseMask(ca), bytescan.CaseMask(cb))
		if j < 0 {
			return -1
		}
		i += j
		if equalFoldASCII(buf[i:i+n], m.lower) {
			return i
		}
	}
}

func (m *asciiMatcher) overlap() int { return len(m.lower) - 1 }
func (m *asciiMatcher) cost() int    { return m.weight }

func (m *asciiMatcher) find(buf []byte, _ *[]byte) bool { return m.index(buf) >= 0 }

// index returns where the first occurrence of the term in buf starts, or
// -1.
func (m *asciiMatcher) index(buf []byte) int {
	n := len(m.lower)
	if len(buf) < n {
		return -1
	}
	if m.pair {
		return m.indexPair(buf)
	}
	// hay holds every position the anchor byte can take in a whole
	// occurrence; a hit at hay[p] means an occurrence starting at buf[p].
	hay := buf[m.anchor : len(buf)-n+m.anchor+1]
	if m.lo != m.up {
		i1, i2 := bytescan.IndexByte(hay, m.lo), bytescan.IndexByte(hay, m.up)
		for i1 >= 0 || i2 >= 0 {
			if i2 < 0 || (i1 >= 0 && i1 < i2) {
				if equalFoldASCII(buf[i1:i1+n], m.lower) {
					return i1
				}
				i1 = indexByteFrom(hay, i1+1, m.lo)
			} else {
				if equalFoldASCII(buf[i2:i2+n], m.lower) {
					return i2
				}
				i2 = indexByteFrom(hay, i2+1, m.up)
			}
		}
		return -1
	}
	for p := 0; ; p++ {
		i := bytescan.IndexByte(hay[p:], m.lo)
		if i < 0 {
			return -1
		}
		p += i
		if equalFoldASCII(buf[p:p+n], m.lower) {
			return p
		}
	}
}

// indexByteFrom is bytescan.IndexByte(b[from:], c) in b's coordinates.
func indexByteFrom(b []byte, from int, c byte) int {
	i := bytescan.IndexByte(b[from:], c)
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
// matcher looks for the lead bytes of those sources (rare in most
// transcripts: one pass stopping at any non-ASCII byte finds them all),
// checks that the character there is a source, and only then folds a
// window around it and looks for the folded term there. The window is wide enough for any occurrence through the
// hit: each input character yields at least one byte of the folded term
// and takes at most 4 bytes, and 3 more bytes let decoding that starts
// inside a character resynchronise before it matters.
type foldMatcher struct {
	folded  []byte        // the term's full case folding
	ascii   *asciiMatcher // for an all-ASCII folding: the ASCII-only occurrences
	sources []rune        // sorted non-ASCII characters that can start a candidate
	anchors []byte        // their lead bytes
	scans   []anchorScan  // findEach's passes for them
	reach   int           // window bytes on each side of a hit
	weight  int
	// req, when set, finds a run of the folded term that every
	// occurrence holds as plain ASCII (requiredRun): where source
	// characters are dense, the matcher looks for it alone and folds a
	// window around each hit, instead of stopping at every source.
	req   *asciiMatcher
	reqAt int // where req's run lies in folded
	// reqOnly: find scans for the required run alone, and checks the
	// term at each hit (ASCII text) or folds a window around it.
	reqOnly bool
}

func newFoldMatcher(term string) *foldMatcher {
	m := &foldMatcher{folded: appendFold(nil, []byte(term))}
	m.reach = 4*len(m.folded) + utf8.UTFMax - 1
	if isASCII(string(m.folded)) {
		// Any character may be the non-ASCII one: take the sources of all
		// whose folding fits in the term there (ﬅ gives "st" to "test",
		// not to "tea").
		m.ascii = newASCIIMatcher(string(m.folded))
		for j := range m.folded {
			for _, src := range foldSources(rune(m.folded[j])) {
				if src >= utf8.RuneSelf && fits(foldRune(src), string(m.folded), j) {
					m.addSources([]rune{src})
				}
			}
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
	m.scans = anchorScans(m.sources)
	m.weight += leadWeight(m.sources)
	if m.ascii != nil {
		// A run of two bytes or more is scanned as a pair: rarer than the
		// source characters in text of the term's language.
		if run, at := requiredRun(string(m.folded)); len(run) >= 2 {
			m.req, m.reqAt = newASCIIMatcher(run), at
			m.weight = m.req.weight
			// One pass for the run finds every occurrence: it beats a
			// pass for the term then one for the sources when the run
			// is about as rare as the term (a hit costs more in it).
			m.reqOnly = pairWeight(m.req.lower) <= pairWeight(m.folded)+64
		}
	}
	return m
}

// requiredRun returns the longest run of an ASCII folded term that any
// text folding to hold the term holds as ASCII letters itself (either
// case), or "". A position of the term is forced when no non-ASCII
// character can give it: none folds to a string holding that byte there
// in agreement with the term's bytes around it (ß folds to "ss" and can
// give either s of "strasse"; ẚ folds to "aʾ" and cannot give its "a",
// which an "s" follows). Each forced position is then one ASCII character
// of the text, and a run of them is a run of the text.
func requiredRun(term string) (run string, at int) {
	forced := make([]bool, len(term))
	for j := range term {
		forced[j] = true
		for _, src := range foldSources(rune(term[j])) {
			if src < utf8.RuneSelf {
				continue
			}
			if f := foldRune(src); f == "" || fits(f, term, j) {
				forced[j] = false
				break
			}
		}
	}
	best, at := "", 0
	for i := 0; i < len(term); {
		if !forced[i] {
			i++
			continue
		}
		j := i
		for j < len(term) && forced[j] {
			j++
		}
		if j-i > len(best) {
			best, at = term[i:j], i
		}
		i = j
	}
	return best, at
}

// pairWeight estimates how often the two rarest bytes of an ASCII term
// (either case) occur together where they lie in it, per million bytes,
// as if independent.
func pairWeight(lower []byte) int {
	w1, w2 := -1, -1
	for _, c := range lower {
		w := byteWeight(c)
		if u := upperASCII(c); u != c {
			w += byteWeight(u)
		}
		switch {
		case w1 < 0 || w < w1:
			w1, w2 = w, w1
		case w2 < 0 || w < w2:
			w2 = w
		}
	}
	if w2 < 0 {
		return w1
	}
	return w1 * w2 / 1e6
}

// fits reports whether the folding f can lie over term with one of its
// bytes at term[j]: some k with f[k] == term[j] and every other byte of f
// that lies over the term equal to it.
func fits(f, term string, j int) bool {
	for k := 0; k < len(f); k++ {
		ok := true
		for m := -k; m < len(f)-k; m++ {
			if t := j + m; t >= 0 && t < len(term) && f[k+m] != term[t] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
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
	if m.reqOnly {
		return m.findRequired(buf, scratch)
	}
	if m.ascii != nil && m.ascii.find(buf, scratch) {
		return true
	}
	st := foldChecks{budget: 16 + len(buf)/(4*m.reach)}
	maxMisses := 16 + len(buf)/1024
	if m.req != nil {
		// The required run costs a pair scan, not a fold of the rest:
		// switch to it at a tenth of the density.
		st.budget = 16 + len(buf)/(40*m.reach)
		maxMisses = 16 + len(buf)/2560
	}
	if len(m.anchors) == 1 {
		return m.findEach(buf, 0, scratch, &st)
	}
	// Several lead bytes: one pass for any non-ASCII character finds the
	// candidates of all (transcripts hold few), where a pass per lead byte
	// would read the buffer again for each. Text dense in other non-ASCII
	// characters goes on with a pass per lead byte (or pair of bytes), or
	// for a rare required run.
	misses := 0
	for p := 0; ; p++ {
		i := bytescan.IndexPair(buf[p:], 0, 0xff, 0xff, 0x3f, 0x3f) // a lead byte, >= 0xC0
		if i < 0 {
			return false
		}
		p += i
		if !m.sourceAt(buf, p) {
			if misses++; misses > maxMisses {
				if m.req != nil && pairWeight(m.req.lower) <= rareRun {
					return m.findRequired(buf[max(0, p-m.reach):], scratch)
				}
				return m.findEach(buf, p, scratch, &st)
			}
			continue
		}
		if found, last := m.check(buf, p, scratch, &st); found || last {
			return found
		}
	}
}

// findRequired looks for the required run. At each hit the term is
// first compared where the run lies in it (an occurrence in ASCII text);
// when the window around the hit, wide enough for any occurrence through
// it, holds other bytes, it is folded and searched. Once such windows are
// dense, the rest of buf is folded at once.
func (m *foldMatcher) findRequired(buf []byte, scratch *[]byte) bool {
	n, t := len(m.req.lower), len(m.folded)
	budget := 16 + len(buf)/(4*m.reach)
	for from, checks := 0, 0; ; {
		i := m.req.index(buf[from:])
		if i < 0 {
			return false
		}
		p := from + i
		if s := p - m.reqAt; s >= 0 && s+t <= len(buf) && equalFoldASCII(buf[s:s+t], m.folded) {
			return true
		}
		lo, hi := max(0, p-m.reach), min(len(buf), p+n+m.reach)
		if !m.sourceIn(buf[lo:hi]) {
			// Any occurrence through this hit is ASCII text, compared
			// above at its own hit.
			from = p + 1
			continue
		}
		if checks++; checks > budget {
			hi = len(buf)
		}
		*scratch = appendFold((*scratch)[:0], buf[lo:hi])
		if bytes.Contains(*scratch, m.folded) {
			return true
		}
		if hi == len(buf) {
			return false
		}
		from = p + 1
	}
}

// foldChecks counts the windows folded in one buffer.
type foldChecks struct{ checks, budget int }

// findEach looks for the lead bytes from buf[from] on, an indexByte pass
// for each, in buffer order.
func (m *foldMatcher) findEach(buf []byte, from int, scratch *[]byte, st *foldChecks) bool {
	var next [8]int
	heads := next[:0]
	if len(m.scans) > len(next) {
		heads = make([]int, 0, len(m.scans))
	}
	for _, a := range m.scans {
		heads = append(heads, a.index(buf, from))
	}
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
		heads[k] = m.scans[k].index(buf, p+1)
		if found, last := m.check(buf, p, scratch, st); found || last {
			return found
		}
	}
}

// check looks for the term around a lead byte at buf[p]: when the
// character there is a source, it folds a window around it. last reports
// that the rest of buf was folded and searched at once.
func (m *foldMatcher) check(buf []byte, p int, scratch *[]byte, st *foldChecks) (found, last bool) {
	if r, _ := utf8.DecodeRune(buf[p:]); !m.isSource(r) {
		return false, false
	}
	lo, hi := max(0, p-m.reach), min(len(buf), p+m.reach)
	if st.checks++; st.checks > st.budget {
		// Sources are dense (text in the term's script): scan the rest
		// for the required run, or fold it once, rather than a window
		// per hit.
		if m.req != nil {
			return m.findRequired(buf[lo:], scratch), true
		}
		hi = len(buf)
	}
	*scratch = appendFold((*scratch)[:0], buf[lo:hi])
	return bytes.Contains(*scratch, m.folded), hi == len(buf)
}

// rareRun is the pair weight (pairWeight) below which a required run is
// scanned for rather than the source characters in text dense in other
// non-ASCII characters: a hit every 2 KiB or less.
const rareRun = 500

// sourceAt reports whether a source character starts at b[i].
func (m *foldMatcher) sourceAt(b []byte, i int) bool {
	if !slices.Contains(m.anchors, b[i]) {
		return false
	}
	r, _ := utf8.DecodeRune(b[i:])
	return m.isSource(r)
}

// sourceIn reports whether b holds a source character (one starting in
// b).
func (m *foldMatcher) sourceIn(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:])&asciiHighs == 0 {
			i += 7
			continue
		}
		if b[i] >= 0xC0 && m.sourceAt(b, i) {
			return true
		}
	}
	return false
}

// anchorScan is one pass of findEach: for the source characters with one
// lead byte, that byte, and when their second bytes agree but for bit
// 0x20 (a letter's two cases, often), that byte too (a pair scan stops at
// far fewer places in text of the same script).
type anchorScan struct {
	lead, second, mask byte
	pair               bool
}

func anchorScans(sources []rune) []anchorScan {
	var scans []anchorScan
	for _, r := range sources {
		var enc [utf8.UTFMax]byte
		utf8.EncodeRune(enc[:], r)
		k := slices.IndexFunc(scans, func(a anchorScan) bool { return a.lead == enc[0] })
		switch {
		case k < 0:
			scans = append(scans, anchorScan{lead: enc[0], second: enc[1], pair: true})
		case scans[k].second|0x20 == enc[1]|0x20:
			if scans[k].second != enc[1] {
				scans[k].second, scans[k].mask = enc[1]|0x20, 0x20
			}
		default:
			scans[k].pair = false
		}
	}
	return scans
}

// index returns where the next anchor lies in buf from from on, or -1.
func (a anchorScan) index(buf []byte, from int) int {
	if from >= len(buf) {
		return -1
	}
	var i int
	if a.pair {
		i = bytescan.IndexPair(buf[from:], 1, a.lead, a.second, 0, a.mask)
	} else {
		i = bytescan.IndexByte(buf[from:], a.lead)
	}
	if i < 0 {
		return -1
	}
	return from + i
}

func (m *foldMatcher) isSource(r rune) bool {
	_, ok := slices.BinarySearch(m.sources, r)
	return ok
}

// foldSources lists every character whose full case folding contains the
// folded character c, c itself included: the generated inverse of the
// fold table (a pass over the table per character was most of a warm
// search's setup).
func foldSources(c rune) []rune {
	var src []rune
	if i, ok := slices.BinarySearchFunc(foldInverse[:], c, func(p foldPair, c rune) int { return cmp.Compare(p.r, c) }); ok {
		src = []rune(foldInverse[i].fold)
	}
	if foldRune(c) == "" {
		src = append(src, c)
	}
	return src
}
