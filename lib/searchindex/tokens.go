package searchindex

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"hash/crc32"
	"io"
	"slices"
	"sort"
)

// Tokens make a candidate a proof. Besides its trigrams, a segment holds
// tokens of its main transcripts' content: maximal runs of token bytes
// (tokenByte) of the folded text, each with, per piece it occurs in, the
// first document there. A token is a piece of a document's folded
// content, so a term whose folding equals one occurs in that content,
// which is all the scan asks (it finds the folded term in the folded
// text: search's textMatcher). Such a session needs no reading: a common
// term used to cost, per session, a file's open and read and a record's
// walk to verify what its main transcript's first candidate held.
//
// What is kept is what such a term needs, so that the index stays small:
// main transcripts only (they decide a matching session), the first
// document per piece (one proves it), and only the tokens in two pieces
// of the segment at least (a rarer one has few candidates to verify); a
// small segment, as one run's update of the sessions that grew writes,
// keeps all of them. A term not kept, or no
// whole token (part of a longer word, or holding a blank or a slash), is
// verified as before.
//
// Only content is tokenized: a line that is not a record is indexed by
// its raw bytes for its trigrams (a term there is verified, and the scan
// says it skipped the line), never for its tokens.
//
// In a segment, a token's documents are a posting list like a trigram's,
// under a key of 1<<31 and 31 bits of the token's hash (a trigram's key
// is below 1<<24). The list of a key holds every token of that hash, each
// as uvarint(length), its bytes, uvarint(count) and its documents as
// delta uvarints: the token's bytes, not its hash, decide.

const (
	tokenBit  = 1 << 31
	minPieces = 2  // pieces of a segment a token must be in to be kept
	minToken  = 3  // shorter terms are left to the scan (no trigram)
	maxToken  = 64 // a longer run (base64, a hash) is not kept
)

// tokenByte reports whether folded byte c belongs in a token: an ASCII
// letter or digit, '_', or a byte of a non-ASCII character (not
// brokenByte, 0xFF, which no term holds).
func tokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80 && c != 0xFF
}

// tokenOf returns a term's folding when it can be a whole token (every
// byte a token byte, of a length kept), else nil.
func tokenOf(folded []byte) []byte {
	if len(folded) < minToken || len(folded) > maxToken {
		return nil
	}
	for _, c := range folded {
		if !tokenByte(c) {
			return nil
		}
	}
	return folded
}

// tokenHash is FNV-1a: written into segments, so fixed.
func tokenHash(tok []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range tok {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// tokenKey is a token's key in a segment (h: tokenHash(tok) | 1).
func tokenKey(h uint64) uint32 { return tokenBit | uint32(h>>33) }

// tokRef is a token of a piece: its hash, its bytes in the piece's
// tokText, and the first of the piece's documents it is in.
type tokRef struct {
	h           uint64
	off, n, doc uint32
}

// tokSet holds the hashes of the tokens of the piece being built (open
// addressing; 0 is empty), so that each is kept once per piece. A token
// whose hash another already has is taken as seen: at worst a token that
// could have proven a term is not kept (the term is then verified), never
// one with bytes it does not have.
type tokSet struct {
	slots []uint64
	used  []uint32
}

// add reports whether h is new to the set, and adds it.
func (s *tokSet) add(h uint64) bool {
	if 2*(len(s.used)+1) > len(s.slots) {
		s.grow()
	}
	mask := len(s.slots) - 1
	for i := int(h>>32) & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = h
			s.used = append(s.used, uint32(i))
			return true
		case h:
			return false
		}
	}
}

func (s *tokSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(4096, 2*len(old)))
	s.used = s.used[:0]
	mask := len(s.slots) - 1
	for _, h := range old {
		if h == 0 {
			continue
		}
		i := int(h>>32) & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = h
		s.used = append(s.used, uint32(i))
	}
}

func (s *tokSet) reset() {
	for _, i := range s.used {
		s.slots[i] = 0
	}
	s.used = s.used[:0]
}

// addTokens adds the tokens of folded content f, in the document being
// built, to p: one pass that finds each run and hashes it (tokenHash's
// FNV-1a) as it goes.
func (b *builder) addTokens(p *piece, f []byte) {
	for i := 0; i < len(f); {
		if !tokenTab[f[i]] {
			i++
			continue
		}
		h := uint64(14695981039346656037)
		j := i
		for ; j < len(f) && tokenTab[f[j]]; j++ {
			h ^= uint64(f[j])
			h *= 1099511628211
		}
		if n := j - i; n >= minToken && n <= maxToken && b.toks.add(h|1) { // 0 marks an empty slot
			p.toks = append(p.toks, tokRef{h: h | 1, off: uint32(len(p.tokText)), n: uint32(n), doc: uint32(len(p.docs))})
			p.tokText = append(p.tokText, f[i:j]...)
		}
		i = j
	}
}

// tokenTab is tokenByte as a table, for addTokens' loop.
var tokenTab = func() (t [256]bool) {
	for c := range t {
		t[c] = tokenByte(byte(c))
	}
	return t
}()

// tokList is a key's posting list of tokens, as a segment holds it.
type tokList struct {
	key  uint32
	list []byte
}

// tokenLists groups the tokens of a segment's pieces (in order, their
// documents numbered on from one to the next) by token, keeps those in
// minPieces of them (all, in a segment of less than smallSegment bytes of
// content), and groups those by key: the lists by key, in order.
// Tokens are grouped by hash, their bytes compared (a hash two tokens
// share sends the second to a map by bytes), and each group's documents
// laid out by counting: no allocation per token.
func tokenLists(pieces []*piece) []tokList {
	type group struct {
		h        uint64
		tok      []byte
		n, start uint32
	}
	var groups []group
	byHash := map[uint64]int32{}
	var byBytes map[string]int32 // tokens whose hash another has
	n := 0
	for _, p := range pieces {
		n += len(p.toks)
	}
	ids := make([]int32, 0, n) // each token ref's group, in order
	for _, p := range pieces {
		for _, r := range p.toks {
			tok := p.tokText[r.off : r.off+r.n]
			g, ok := byHash[r.h]
			if ok && !bytes.Equal(groups[g].tok, tok) {
				g, ok = byBytes[string(tok)]
				if !ok {
					if byBytes == nil {
						byBytes = map[string]int32{}
					}
					g = int32(len(groups))
					byBytes[string(tok)] = g
					groups = append(groups, group{h: r.h, tok: tok})
				}
			} else if !ok {
				g = int32(len(groups))
				byHash[r.h] = g
				groups = append(groups, group{h: r.h, tok: tok})
			}
			groups[g].n++
			ids = append(ids, g)
		}
	}
	sum := uint32(0)
	for i := range groups {
		groups[i].start = sum
		sum += groups[i].n
	}
	flat := make([]uint32, sum)
	next := make([]uint32, len(groups))
	k, base := 0, uint32(0)
	for _, p := range pieces {
		for _, r := range p.toks {
			g := ids[k]
			k++
			flat[groups[g].start+next[g]] = base + r.doc
			next[g]++
		}
		base += uint32(len(p.docs))
	}
	var text int64
	for _, p := range pieces {
		text += p.text
	}
	if text >= smallSegment {
		groups = slices.DeleteFunc(groups, func(g group) bool { return g.n < minPieces })
	}
	slices.SortFunc(groups, func(a, b group) int {
		return cmp.Or(cmp.Compare(tokenKey(a.h), tokenKey(b.h)), bytes.Compare(a.tok, b.tok))
	})
	var out []tokList
	for _, g := range groups {
		k := tokenKey(g.h)
		if len(out) == 0 || out[len(out)-1].key != k {
			out = append(out, tokList{key: k})
		}
		l := &out[len(out)-1]
		l.list = binary.AppendUvarint(l.list, uint64(len(g.tok)))
		l.list = append(l.list, g.tok...)
		l.list = binary.AppendUvarint(l.list, uint64(g.n))
		prev := uint32(0)
		for i, d := range flat[g.start : g.start+g.n] {
			if i == 0 {
				l.list = binary.AppendUvarint(l.list, uint64(d))
			} else {
				l.list = binary.AppendUvarint(l.list, uint64(d-prev))
			}
			prev = d
		}
	}
	return out
}

// tokenDocs returns the documents of the segment whose content holds tok
// as a whole token, in order (nil: none).
func (s *segment) tokenDocs(tok []byte) ([]uint32, error) {
	var buf []byte
	off, ln, sum, ok, err := s.entry(tokenKey(tokenHash(tok)|1), &buf)
	if !ok || err != nil {
		return nil, err
	}
	buf = slices.Grow(buf[:0], int(ln))[:ln]
	if _, err := s.f.ReadAt(buf, s.postOff+off); err != nil && err != io.EOF || crc32.Checksum(buf, crcTable) != sum {
		return nil, errBad
	}
	return decodeTokens(buf, tok, s.ndocs)
}

// decodeTokens finds tok in a key's list and decodes its documents,
// checked to be fewer than ndocs and in order.
func decodeTokens(list, tok []byte, ndocs int) ([]uint32, error) {
	uv := func() (uint64, bool) {
		v, n := binary.Uvarint(list)
		if n <= 0 {
			return 0, false
		}
		list = list[n:]
		return v, true
	}
	for len(list) > 0 {
		n, ok := uv()
		if !ok || n > uint64(len(list)) {
			return nil, errBad
		}
		t := list[:n]
		list = list[n:]
		count, ok := uv()
		if !ok || count == 0 || count > uint64(ndocs) {
			return nil, errBad
		}
		match := bytes.Equal(t, tok)
		var docs []uint32
		if match {
			docs = make([]uint32, 0, count)
		}
		d := uint64(0)
		for i := uint64(0); i < count; i++ {
			v, ok := uv()
			if !ok || (i > 0 && v == 0) {
				return nil, errBad
			}
			if d += v; d >= uint64(ndocs) {
				return nil, errBad
			}
			if match {
				docs = append(docs, uint32(d))
			}
		}
		if match {
			return docs, nil
		}
	}
	return nil, nil
}

// proofDocs returns the documents of a segment whose content holds term
// ti as a whole token (nil: none, or the term can be no token).
func (ix *Index) proofDocs(ss *segState, ti int) ([]uint32, error) {
	tok := ix.q.toks[ti]
	if tok == nil {
		return nil, nil
	}
	c := &ss.proof[ti]
	c.once.Do(func() { c.docs, c.err = ss.seg.tokenDocs(tok) })
	return c.docs, c.err
}

// proven reports whether a document of a part's pieces in segments holds
// term ti as a whole token: the term is then in the part's content. It
// may say no where the term is (verify then reads).
func (ix *Index) proven(p *part, ti int) (bool, error) {
	if !useProofs || ix.q.toks[ti] == nil {
		return false, nil
	}
	for _, r := range p.refs {
		ss := ix.segment(r.seg)
		if ss.err != nil {
			return false, ss.err
		}
		docs, err := ix.proofDocs(ss, ti)
		if err != nil {
			return false, err
		}
		i := sort.Search(len(docs), func(i int) bool { return docs[i] >= r.lo })
		if i < len(docs) && docs[i] < r.hi {
			return true, nil
		}
	}
	return false, nil
}

// useProofs turns the tokens' proofs on (a test turns them off for the
// twin that verifies every candidate).
var useProofs = true
