package searchindex

import (
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/search"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// Suggest returns up to n terms one edit (a byte deleted, inserted,
// replaced, or two swapped) from term's folding that occur in the content
// the index holds: each is verified in a document by the scan's matcher,
// as an answer is. Nil when the term occurs, when the index holds
// nothing, or when none is found. It reads the segments only.
func (ix *Index) Suggest(term string, n int) []string {
	segs := ix.liveSegments()
	if len(segs) == 0 || len(termTrigrams(term)) == 0 {
		return nil
	}
	if ix.verifies(segs, term, termTrigrams(term)) {
		return nil // it occurs (in sessions this search did not select)
	}
	f := string(search.FoldTerm(term))
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789_-./ "
	var cands []string
	add := func(c string) {
		if len(c) >= 3 && utf8.ValidString(c) && c != f && !slices.Contains(cands, c) && strings.TrimSpace(c) == c {
			cands = append(cands, c)
		}
	}
	// Replacements and swaps first (a typo), then insertions, then
	// deletions (which find pieces of longer words).
	for i := 0; i < len(f); i++ {
		for j := 0; j < len(alphabet); j++ {
			add(f[:i] + alphabet[j:j+1] + f[i+1:])
		}
		if i+1 < len(f) {
			add(f[:i] + f[i+1:i+2] + f[i:i+1] + f[i+2:])
		}
	}
	for i := 0; i <= len(f); i++ {
		for j := 0; j < len(alphabet); j++ {
			add(f[:i] + alphabet[j:j+1] + f[i:])
		}
	}
	for i := 0; i < len(f); i++ {
		add(f[:i] + f[i+1:])
	}
	var out []string
	memo := map[segTri]bool{}
	for _, c := range cands {
		if len(out) == n {
			break
		}
		tris := termTrigrams(c)
		if !ix.present(segs, tris, memo) || !ix.verifies(segs, c, tris) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// liveSegments lists the segments the manifest names, with the pieces
// of files in each.
func (ix *Index) liveSegments() map[uint64][]filePiece {
	segs := map[uint64][]filePiece{}
	ix.manifest().Each(func(path string, e *cache.Entry) {
		refs, ok := decodeRefs(e.Data)
		if !ok {
			return
		}
		for _, r := range refs {
			segs[r.seg] = append(segs[r.seg], filePiece{path, r})
		}
	})
	return segs
}

type segTri struct {
	seg uint64
	t   uint32
}

type filePiece struct {
	path string
	r    ref
}

// present reports whether some segment holds every trigram: a cheap
// test before posting lists are read.
func (ix *Index) present(segs map[uint64][]filePiece, tris []uint32, memo map[segTri]bool) bool {
	for id := range segs {
		ss := ix.segment(id)
		if ss.err != nil {
			continue
		}
		all := true
		for _, t := range tris {
			ok, seen := memo[segTri{id, t}]
			if !seen {
				ok, _ = ss.seg.has(t)
				memo[segTri{id, t}] = ok
			}
			if !ok {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// eachCandidate calls fn with the file and span of each live document
// holding every trigram, until fn returns false.
func (ix *Index) eachCandidate(segs map[uint64][]filePiece, tris []uint32, fn func(path string, s span) bool) {
	for id, pieces := range segs {
		ss := ix.segment(id)
		if ss.err != nil {
			continue
		}
		docs, err := ss.seg.allOf(tris)
		if err != nil || len(docs) == 0 {
			continue
		}
		spans, err := ss.seg.spans()
		if err != nil {
			continue
		}
		for _, fp := range pieces {
			for _, d := range docs {
				if d >= fp.r.lo && d < fp.r.hi && int(d) < spans.len() && !fn(fp.path, spans.at(d)) {
					return
				}
			}
		}
	}
}

// verifies reads a few candidate documents of term (plain files only) and
// reports whether the scan's matcher finds it in one.
func (ix *Index) verifies(segs map[uint64][]filePiece, term string, tris []uint32) bool {
	s, err := search.New(search.Options{Terms: []string{term}})
	if err != nil {
		return false
	}
	sc := s.NewScanner()
	found, tries := false, 0
	ix.eachCandidate(segs, tris, func(path string, sp span) bool {
		if tries++; tries > 16 {
			return false
		}
		if transcript.CompressionOf(path) != transcript.Plain {
			return true // an archive is read from its start: not for a suggestion
		}
		f, err := os.Open(path)
		if err != nil {
			return true
		}
		defer f.Close()
		buf := make([]byte, sp.end-sp.start)
		if _, err := f.ReadAt(buf, sp.start); err != nil {
			return true
		}
		kind := search.KindTranscript
		if strings.Contains(path, "/"+layout.ToolResultsDir+"/") {
			kind = search.KindToolResult
		}
		found = sc.RegionHolds(buf, kind, 0)
		return !found
	})
	return found
}
