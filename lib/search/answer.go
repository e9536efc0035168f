package search

import (
	"context"
	"io"
)

// What an index of content (lib/searchindex) needs of this package, so
// that it folds, walks and verifies exactly as the scan does: one rule in
// one place.

// Answerer answers for a session from elsewhere than a scan of all its
// files: an index that narrows it to the parts that may hold the terms
// and verifies those with the scanner's own matchers. ok false leaves the
// session to the scan.
type Answerer interface {
	Answer(ctx context.Context, sc *Scanner, transcriptPath string) (r Result, ok bool)
}

// SetAnswerer makes Pipeline and SearchAll ask a first for every
// session. Set it before they start.
func (s *Searcher) SetAnswerer(a Answerer) { s.answerer = a }

// answer is one job: from the answerer if it has the answer, else from a
// scan.
func (sc *Scanner) answer(ctx context.Context, transcriptPath string) Result {
	if a := sc.s.answerer; a != nil {
		sc.startBad()
		if r, ok := a.Answer(ctx, sc, transcriptPath); ok {
			sc.s.Sessions.Add(1)
			sc.takeBad(&r)
			return r
		}
	}
	return sc.Session(ctx, transcriptPath)
}

// Opts returns the options the Searcher was made with.
func (s *Searcher) Opts() Options { return s.opts }

// Matched decides a session from which terms were found in it: any of
// them with Options.Any, else every one.
func (s *Searcher) Matched(found []bool) bool {
	for _, f := range found {
		if f == s.opts.Any {
			return f
		}
	}
	return !s.opts.Any
}

// RegionHolds reports whether term ti (an index in Options.Terms) lies in
// the content of region, whole lines of a file of kind (a whole stored
// tool result, or whole transcript lines), as the scan decides it.
func (sc *Scanner) RegionHolds(region []byte, kind string, ti int) bool {
	return sc.regionHolds(region, kind, ti, &sc.ts)
}

// RegionHoldsAlso is RegionHolds that also sets found[tj] for each other
// term not yet found that it sees in a transcript's content string it
// decodes on the way (no further read nor decode for them): with every
// term to find, a term seen there need not be verified on its own.
func (sc *Scanner) RegionHoldsAlso(region []byte, kind string, ti int, found []bool) bool {
	return sc.regionHoldsAlso(region, kind, ti, &sc.ts, found)
}

// EachContent calls fn with every content string of one transcript line,
// decoded, in the line's order (content.go says which strings count). A
// line that does not decode is an error: an index keeps its raw bytes,
// so that the verification sees it and counts it (Result.Undecodable).
func EachContent(line []byte, fn func(text []byte)) error {
	_, err := walkContent(line, nil, func(_ *Place, text []byte) bool {
		fn(text)
		return true
	})
	return err
}

// AppendFold appends the case folding of text that every term is
// compared under: full Unicode case folding, each byte of invalid UTF-8
// as 0xFF. A term occurs in text exactly when FoldTerm(term) occurs in
// AppendFold(nil, text).
func AppendFold(dst, text []byte) []byte { return appendFold(dst, text) }

// FoldTerm is a term as AppendFold folds text: what its occurrences in
// folded text look like.
func FoldTerm(term string) []byte { return appendFold(nil, []byte(term)) }

// ReadFull fills buf from r as io.ReadFull does, except that only r's
// own io.EOF is the end (a cut archive's io.ErrUnexpectedEOF is an
// error), as the scan reads.
func ReadFull(r io.Reader, buf []byte) (int, error) { return readFull(r, buf) }

// Searcher returns the Searcher a Scanner works for.
func (sc *Scanner) Searcher() *Searcher { return sc.s }

// OpenRegions opens a plain file to read regions of it at their offsets
// (an index's candidate documents), as the scan opens one: bare system
// calls where they save (openPlain), a FIFO or socket refused.
func OpenRegions(path string) (RegionReader, error) { return openPlain(path) }

// RegionReader reads a file opened by OpenRegions.
type RegionReader interface {
	io.ReaderAt
	io.Closer
}
