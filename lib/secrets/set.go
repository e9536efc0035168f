package secrets

import (
	"encoding/binary"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// A Rule is one credential shape.
type Rule struct {
	// Kind names the shape in findings and in [REDACTED:<kind>]:
	// lowercase letters, digits and dashes (Blackbox's labels excepted).
	Kind string
	// Doc says in one line what the rule matches.
	Doc string
	// Keywords are literal anchors (ASCII case ignored, at least 3 bytes):
	// every match starts with one of them, and Pattern is tried anchored
	// at each place one occurs. A rule without keywords runs over the whole
	// input (slow; for site rules with no literal start).
	Keywords []string
	// Span bounds the bytes the expression reads at a keyword hit (0
	// means 512); a match that reaches that far is tried again on the rest
	// of the input, so only the cost is bounded, never the secret.
	Span int
	// Pattern is the expression. A group named "secret" is the part that
	// is reported and replaced; without one, the whole match.
	Pattern *regexp.Regexp
	// Expr, when Pattern is nil, is the expression's source, compiled
	// the first time a keyword of the rule is hit (a panic if it does not
	// compile: for the built-in rules, which tests compile). Compiling
	// them all at start-up was most of a clean hook run.
	Expr string
	// WordStart makes the match need a word boundary before it, as JS's
	// \b: the byte before is not [A-Za-z0-9_], or is the letter of a JSON
	// escape such as \n (see wordStart). (A leading \b in Pattern
	// would do the same, but would also stop Go's regexp from skipping
	// ahead to a literal prefix.)
	WordStart bool
	// MinEntropy, when not 0, is the least Shannon entropy in bits per
	// byte that the secret must have.
	MinEntropy float64
	// Valid, when not nil, rejects a candidate secret (a placeholder, a
	// variable reference, a value without a digit).
	Valid func(secret []byte) bool

	// jsBoundary makes WordStart exactly JS's \b, for Blackbox's rules:
	// the letter of a JSON escape before the match is a word byte.
	jsBoundary bool

	// guard, when not nil, is a cheap test of the bytes at a keyword hit
	// that every match passes: where it fails, Pattern is not run.
	guard func(b []byte) bool
}

// A Match is one secret found: its rule's kind and the byte offsets of the
// secret in the input. It never holds the secret, so printing a Match
// prints no credential.
type Match struct {
	Kind       string
	Start, End int
}

// candidate is a match with its rule's index, to settle ties.
type candidate struct {
	Match
	rule int
}

func (m Match) String() string { return fmt.Sprintf("%s@%d-%d", m.Kind, m.Start, m.End) }

// A Set is a list of rules compiled for one pass over the input. It is
// safe for concurrent use.
type Set struct {
	// lazy, when set, gives the rules of a set built on first use (the
	// package's own sets: building them all at start-up was most of a
	// clean hook run); built is that set.
	lazy  func() []*Rule
	once  sync.Once
	built *Set

	rules    []*Rule
	anchored []*lazyRegexp      // Pattern, matching only at the start
	full     []*lazyRegexp      // Pattern itself
	keywords []keyword          // distinct, lowercase
	bits     []uint64           // trigram hashes that may start a keyword (see index)
	buckets  map[uint32][]int32 // per hash: keyword index<<2 | (shift+1)
	unkeyed  []int              // rules without keywords: run over the whole input
}

type keyword struct {
	lit   []byte // lowercase
	rules []int
	span  int // the longest span of its rules
}

// fold maps ASCII letters to lowercase and every other byte to itself.
// (A function, not init: the package's sets are built before init runs.)
var fold = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i + 32)
		}
	}
	return t
}()

// lazySet is a Set of rules built the first time it is used.
func lazySet(rules func() []*Rule) *Set { return &Set{lazy: rules} }

// ready is the set to use: s, or the one built for a lazy s.
func (s *Set) ready() *Set {
	if s.lazy == nil {
		return s
	}
	s.once.Do(func() { s.built = MustSet(s.lazy()...) })
	return s.built
}

// NewSet compiles rules into a Set. Rules earlier in the list win when
// two matches overlap at the same start.
func NewSet(rules ...*Rule) (*Set, error) {
	s := &Set{bits: make([]uint64, 1<<trigramBits/64), buckets: map[uint32][]int32{}}
	kwIndex := map[string]int{}
	for i, r := range rules {
		src := r.Expr
		if r.Pattern != nil {
			src = r.Pattern.String()
		}
		if r.Kind == "" || src == "" {
			return nil, fmt.Errorf("secrets: rule %d has no kind or no pattern", i)
		}
		s.rules = append(s.rules, r)
		s.anchored = append(s.anchored, &lazyRegexp{src: `^(?:` + src + `)`})
		s.full = append(s.full, &lazyRegexp{src: src, re: r.Pattern})
		if len(r.Keywords) == 0 {
			s.unkeyed = append(s.unkeyed, i)
			continue
		}
		for _, k := range r.Keywords {
			if len(k) < 3 {
				return nil, fmt.Errorf("secrets: rule %s: keyword %q is shorter than 3 bytes", r.Kind, k)
			}
			lk := strings.ToLower(k)
			j, ok := kwIndex[lk]
			if !ok {
				j = len(s.keywords)
				kwIndex[lk] = j
				s.keywords = append(s.keywords, keyword{lit: []byte(lk)})
				s.index(j, lk)
			}
			s.keywords[j].rules = append(s.keywords[j].rules, i)
			s.keywords[j].span = max(s.keywords[j].span, r.span())
		}
	}
	return s, nil
}

// MustSet is NewSet for rule lists fixed at compile time.
func MustSet(rules ...*Rule) *Set {
	s, err := NewSet(rules...)
	if err != nil {
		panic(err)
	}
	return s
}

// Rules returns the set's rules in order (shared; do not modify).
func (s *Set) Rules() []*Rule { return s.ready().rules }

// With returns a new Set of s's rules followed by more.
func (s *Set) With(more ...*Rule) (*Set, error) {
	s = s.ready()
	return NewSet(append(append([]*Rule(nil), s.rules...), more...)...)
}

// MayMatch reports whether b holds a keyword of any rule (or the set has
// a rule without keywords): when it returns false, Find returns nothing.
func (s *Set) MayMatch(b []byte) bool {
	s = s.ready()
	if len(s.unkeyed) > 0 || invisibleAt(b) >= 0 {
		return true
	}
	found := false
	s.eachHit(b, func(int, int) bool { found = true; return false })
	return found
}

// The keyword scan looks at every second position i and the three bytes
// i, i+1, i+2 there, loaded as one word, each ORed with 0x20 (a cheap
// fold: it lowercases letters and merges a few other pairs, such as '_'
// with DEL, which only costs a verification), hashed into a bit table. A
// keyword starting at an even position shows its first three bytes
// there; one at an odd position its bytes 1 to 3 at the next even
// position, or, when it has only 3 bytes, its first two after any byte at
// the even position before it.
const trigramBits = 20

func trigram(a, b, c byte) uint32 {
	return hash24(uint32(a) | uint32(b)<<8 | uint32(c)<<16)
}

func hash24(v uint32) uint32 {
	return (v | 0x202020) * 0x9E3779B1 >> (32 - trigramBits)
}

// index enters keyword j (lowercase lk) in the trigram table.
func (s *Set) index(j int, lk string) {
	add := func(h uint32, shift int) {
		s.bits[h>>6] |= 1 << (h & 63)
		e := int32(j<<2 | (shift + 1))
		b := s.buckets[h]
		if slices.Contains(b, e) {
			return
		}
		// Bigger shifts (earlier starts) first: hits come in order.
		k := 0
		for k < len(b) && b[k]&3 >= e&3 {
			k++
		}
		s.buckets[h] = slices.Insert(b, k, e)
	}
	if len(lk) >= 4 {
		add(trigram(lk[1], lk[2], lk[3]), 1)
	} else {
		for x := range 256 {
			add(trigram(byte(x), lk[0], lk[1]), -1)
		}
	}
	add(trigram(lk[0], lk[1], lk[2]), 0)
}

// eachHit calls fn(position, keyword) for each keyword occurrence in b, in
// order of position, until fn returns false. Text without a keyword costs
// one load, hash and bit test per two bytes.
func (s *Set) eachHit(b []byte, fn func(pos, kw int) bool) {
	bits := (*[1 << (trigramBits - 6)]uint64)(s.bits)
	i := 0
	// Three positions per 8-byte load (i, i+2, i+4), one branch for all
	// when none hits.
	for ; i+8 <= len(b); i += 6 {
		v := binary.LittleEndian.Uint64(b[i:])
		h1 := hash24(uint32(v) & 0xFFFFFF)
		h2 := hash24(uint32(v>>16) & 0xFFFFFF)
		h3 := hash24(uint32(v>>32) & 0xFFFFFF)
		if (bits[h1>>6]>>(h1&63)|bits[h2>>6]>>(h2&63)|bits[h3>>6]>>(h3&63))&1 == 0 {
			continue
		}
		for k, h := range [3]uint32{h1, h2, h3} {
			if bits[h>>6]>>(h&63)&1 != 0 && !s.verify(b, i+2*k, h, fn) {
				return
			}
		}
	}
	for ; i+2 < len(b); i += 2 {
		h := trigram(b[i], b[i+1], b[i+2])
		if bits[h>>6]>>(h&63)&1 != 0 && !s.verify(b, i, h, fn) {
			return
		}
	}
}

// verify checks the keywords a hash hit at i may stand for.
func (s *Set) verify(b []byte, i int, h uint32, fn func(pos, kw int) bool) bool {
	for _, e := range s.buckets[h] {
		start, k := i-int(e&3)+1, int(e>>2)
		if start >= 0 && hasFoldPrefix(b[start:], s.keywords[k].lit) && !fn(start, k) {
			return false
		}
	}
	return true
}

// hasFoldPrefix reports whether b starts with lit (lowercase), ignoring
// ASCII case.
func hasFoldPrefix(b, lit []byte) bool {
	if len(b) < len(lit) {
		return false
	}
	for i, c := range lit {
		if fold[b[i]] != c {
			return false
		}
	}
	return true
}

// Find returns the secrets in b, in order of position, none overlapping.
func (s *Set) Find(b []byte) []Match {
	s = s.ready()
	var cs []candidate
	s.find(b, func(c candidate) { cs = append(cs, c) })
	return pick(cs)
}

// findOwned is Find for a b the caller gives up: it may be overwritten
// (with the text the rules see when escapes or invisible characters are
// in it), which spares a copy of a string of hundreds of MB.
func (s *Set) findOwned(b []byte) []Match {
	var cs []candidate
	s.findIn(b, true, func(c candidate) { cs = append(cs, c) })
	return pick(cs)
}

// FindString is Find for a string.
func (s *Set) FindString(str string) []Match { return s.ready().findOwned([]byte(str)) }

// Kinds returns the kinds found in b, each once, in the order of the
// set's rules (Blackbox reports its labels that way).
func (s *Set) Kinds(b []byte) []string {
	s = s.ready()
	seen := make([]bool, len(s.rules))
	s.find(b, func(c candidate) { seen[c.rule] = true })
	var kinds []string
	for i, ok := range seen {
		if ok && !contains(kinds, s.rules[i].Kind) {
			kinds = append(kinds, s.rules[i].Kind)
		}
	}
	return kinds
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Replace returns b with every secret replaced by [REDACTED:<kind>], and
// the matches. When nothing matched it returns b itself.
func (s *Set) Replace(b []byte) ([]byte, []Match) {
	s = s.ready()
	return s.ReplaceFunc(b, func(m Match) string { return "[REDACTED:" + m.Kind + "]" })
}

// ReplaceFunc is Replace with the replacement text chosen by repl.
func (s *Set) ReplaceFunc(b []byte, repl func(Match) string) ([]byte, []Match) {
	s = s.ready()
	ms := s.Find(b)
	if len(ms) == 0 {
		return b, nil
	}
	out := make([]byte, 0, len(b)+16*len(ms))
	last := 0
	for _, m := range ms {
		out = append(out, b[last:m.Start]...)
		out = append(out, repl(m)...)
		last = m.End
	}
	return append(out, b[last:]...), ms
}

// ReplaceString is Replace for a string; ok is false when nothing matched.
func (s *Set) ReplaceString(str string) (out string, ms []Match) {
	b, ms := s.Replace([]byte(str))
	if len(ms) == 0 {
		return str, nil
	}
	return string(b), ms
}

// find reports every candidate match of every rule (possibly overlapping
// when rules differ), looking through terminal escape sequences and
// invisible characters (invisible.go): the rules see the text without
// them as well as b, and each match's offsets are those of b, spanning
// whatever was inside the secret.
func (s *Set) find(b []byte, emit func(candidate)) { s.findIn(b, false, emit) }

// findIn is find, over b itself when inPlace (see findOwned).
func (s *Set) findIn(b []byte, inPlace bool, emit func(candidate)) {
	first := invisibleAt(b)
	if first < 0 {
		s.findVisible(b, emit)
		return
	}
	// The bytes as they are too: an escape that swallows a byte of a key
	// (a lone ESC before it) must not hide the key.
	s.findVisible(b, emit)
	text, at := visible(b, first, inPlace)
	s.findVisible(text, func(c candidate) {
		c.Start, c.End = at.orig(c.Start), at.orig(c.End-1)+1
		emit(c)
	})
}

func (s *Set) findVisible(b []byte, emit func(candidate)) {
	for _, ri := range s.unkeyed {
		full := s.full[ri]
		for _, loc := range full.get().FindAllSubmatchIndex(b, -1) {
			s.check(ri, full.secret, b, loc, 0, emit)
		}
	}
	if len(s.keywords) == 0 {
		return
	}
	// covered[ri] is the end of rule ri's last match: hits inside it are
	// not run again.
	var covered []int
	s.eachHit(b, func(pos, kw int) bool {
		if covered == nil {
			covered = make([]int, len(s.rules))
		}
		for _, ri := range s.keywords[kw].rules {
			if pos < covered[ri] {
				continue
			}
			if end := s.runAt(ri, b, pos, emit); end > pos {
				covered[ri] = end
			}
		}
		return true
	})
}

// runAt tries rule ri's pattern anchored at pos, on at most Span bytes; a
// match that reaches the window's end is tried again on the rest of b, so
// that a long secret is never cut. It returns the end of the match, or
// pos when there is none.
func (s *Set) runAt(ri int, b []byte, pos int, emit func(candidate)) int {
	r := s.rules[ri]
	if r.WordStart && !r.wordStart(b, pos) || r.guard != nil && !r.guard(b[pos:]) {
		return pos
	}
	to := min(pos+r.span(), len(b))
	loc := s.anchored[ri].FindSubmatchIndex(b[pos:to])
	if loc != nil && loc[1] == to-pos && to < len(b) {
		loc = s.anchored[ri].FindSubmatchIndex(b[pos:])
	}
	if loc == nil {
		return pos
	}
	if !s.check(ri, s.anchored[ri].secret, b, loc, pos, emit) {
		return pos // a rejected candidate covers nothing: a later hit may match
	}
	return pos + loc[1]
}

// check emits the secret of a match found at offset off, if the rule
// accepts it, and reports whether it did; g is the index of the secret
// group in loc.
func (s *Set) check(ri, g int, b []byte, loc []int, off int, emit func(candidate)) bool {
	r := s.rules[ri]
	if r.WordStart && !r.wordStart(b, off+loc[0]) {
		return false
	}
	if loc[2*g] < 0 {
		return false
	}
	ss, se := off+loc[2*g], off+loc[2*g+1]
	if se <= ss || !r.accept(b[ss:se]) {
		return false
	}
	emit(candidate{Match{Kind: r.Kind, Start: ss, End: se}, ri})
	return true
}

func (r *Rule) span() int {
	if r.Span == 0 {
		return 512
	}
	return r.Span
}

func (r *Rule) accept(secret []byte) bool {
	if r.MinEntropy > 0 && Entropy(secret) < r.MinEntropy {
		return false
	}
	return r.Valid == nil || r.Valid(secret)
}

// wordStart reports whether a word may start at b[i], as JS's \b: the
// byte before is not a word byte, or (unless jsBoundary) is the letter of
// a JSON escape (\n, \t, \r, \b, \f after an unescaped backslash): tool
// output that is JSON text holds "line\nsk-..." with a literal
// backslash-n before the key.
func (r *Rule) wordStart(b []byte, i int) bool {
	if i == 0 || !isWord(b[i-1]) {
		return true
	}
	if r.jsBoundary {
		return false
	}
	switch b[i-1] {
	case 'n', 't', 'r', 'b', 'f':
	default:
		return false
	}
	n := 0 // backslashes before the letter: odd means it is escaped
	for j := i - 2; j >= 0 && b[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

func isWord(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= fold[c] && fold[c] <= 'z'
}

// pick sorts candidate matches by start (ties: longest, then the earlier
// rule) and drops any that overlap one already kept.
func pick(cs []candidate) []Match {
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].Start != cs[j].Start {
			return cs[i].Start < cs[j].Start
		}
		if cs[i].End != cs[j].End {
			return cs[i].End > cs[j].End
		}
		return cs[i].rule < cs[j].rule
	})
	var out []Match
	for _, c := range cs {
		if len(out) == 0 || c.Start >= out[len(out)-1].End {
			out = append(out, c.Match)
		}
	}
	return out
}

// Entropy is the Shannon entropy of b in bits per byte: about 3 for
// English words, 4 for hex, 5 to 6 for random base64.
func Entropy(b []byte) float64 {
	if len(b) == 0 {
		return 0
	}
	var n [256]int
	for _, c := range b {
		n[c]++
	}
	h := 0.0
	l := float64(len(b))
	for _, c := range n {
		if c > 0 {
			p := float64(c) / l
			h -= p * math.Log2(p)
		}
	}
	return h
}

// lazyRegexp is a rule's anchored expression, compiled on first use: most
// runs meet few rules' keywords (a clean hook payload none), and
// compiling every rule twice at start-up was most of a short command's
// start. It cannot fail: it wraps a Pattern that compiled.
type lazyRegexp struct {
	once   sync.Once
	src    string
	re     *regexp.Regexp // set already, or compiled from src at first use
	secret int            // index of the "secret" group, or 0 (set with re)
}

// get is the compiled expression.
func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() {
		if l.re == nil {
			l.re = regexp.MustCompile(l.src)
		}
		l.secret = max(l.re.SubexpIndex("secret"), 0)
	})
	return l.re
}

// FindSubmatchIndex is regexp's, compiling first when needed.
func (l *lazyRegexp) FindSubmatchIndex(b []byte) []int { return l.get().FindSubmatchIndex(b) }
