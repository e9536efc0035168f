package search

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/ccpipe/ccpipe/lib/transcript"
)

// Hit is one occurrence of a term in a session's content.
type Hit struct {
	Path      string // the file
	Kind      string // KindTranscript, KindSubagent or KindToolResult
	AgentID   string // the subagent's id, "" in the main transcript
	UUID      string // the record's uuid, "" when it has none (a stored tool result)
	Timestamp string // the record's timestamp, "" when it has none
	Place
	Term    int    // index in Options.Terms
	Snippet string // the hit with Context characters either side
	Start   int    // the hit in Snippet, in characters
	End     int
	order   int // the hit's byte offset in its string
}

// prepareContent builds what the content search needs besides the raw
// matchers: each term's prefilter matcher, its text matcher, and the
// session-level raw pass over the prefilters.
func (s *Searcher) prepareContent() error {
	o := s.opts
	var preTerms []string
	for _, t := range o.Terms {
		s.tms = append(s.tms, newTextMatcher(t))
		p := prefilterTerm(t)
		if p == "" {
			s.pre = append(s.pre, nil)
			continue
		}
		s.pre = append(s.pre, newMatcher(p))
		preTerms = append(preTerms, p)
	}
	// The raw pass can rule a session out only when it sees every term: a
	// term of escapable bytes alone may lie anywhere in the raw text. It
	// pays only with several terms to AND, where it looks for the rarest
	// alone until it shows up: for one term, or any of several, the line
	// pass scans the same bytes the same way, and a session that passes
	// is not read twice.
	if len(preTerms) == len(o.Terms) && len(o.Terms) > 1 && !o.Any {
		var err error
		s.preS, err = New(Options{Terms: preTerms, Any: o.Any, Raw: true, BufSize: o.BufSize})
		if err != nil {
			return err
		}
	}
	if s.opts.Context < 0 {
		s.opts.Context = 0
	}
	return nil
}

// content decides a session on its content: with several terms to AND,
// first the raw pass (the whole session, over the prefilter parts,
// stopping as early as --raw does) rules out every session whose bytes
// cannot hold them all; then each file is read in whole lines, scanned
// for the terms' raw bytes, and only the lines with a raw hit are
// decoded, to see whether the hit lies in content.
func (sc *Scanner) content(ctx context.Context, files []File, res *Result) {
	s := sc.s
	if s.preS != nil {
		if sc.pre == nil {
			sc.pre = s.preS.NewScanner()
		}
		r := sc.pre.Files(ctx, files)
		res.Bytes += r.Bytes
		s.Bytes.Add(r.Bytes)
		if !r.Matched {
			res.Errs = append(res.Errs, r.Errs...)
			return
		}
		// A file that failed is read again below, which reports it.
	}
	for _, f := range files {
		if ctx.Err() != nil || (!s.opts.Matches && sc.decided(res)) {
			return
		}
		sc.contentFile(ctx, f, res)
	}
	if s.opts.Matches && !sc.decided(res) {
		res.Hits = nil
	}
}

// decided reports whether the session's answer is known: a match.
func (sc *Scanner) decided(res *Result) bool {
	if sc.s.opts.Any {
		return slices.Contains(res.Found, true)
	}
	return !slices.Contains(res.Found, false)
}

// fileState is the content search of one file.
type fileState struct {
	f     File
	names map[string]string // tool_use id to name, for --matches
	ts    textScratch
}

// contentFile reads one file in regions of whole lines and looks for the
// terms still wanted in it.
func (sc *Scanner) contentFile(ctx context.Context, f File, res *Result) {
	st := &fileState{f: f}
	var from int64
	if sc.s.opts.Matches {
		// Every line of a file with a raw hit is looked at (a tool_use
		// line names the tool of a later result); a file without is not.
		if !sc.anyRawHit(ctx, f, res) {
			return
		}
		if f.Kind != KindToolResult {
			st.names = map[string]string{}
		}
	} else {
		// The raw scan first, in fixed buffers: a file without the bytes
		// is never read in lines (nor its longest line held), and one
		// with them is read in lines from the line of the first hit.
		var hit bool
		if from, hit = sc.firstRawHit(ctx, f, res); !hit {
			return
		}
	}
	r, closer, err := sc.openLines(f.Path, from)
	if err != nil {
		res.Errs = append(res.Errs, err)
		return
	}
	defer closer.Close()
	sc.At(f.Path, from)
	if err := sc.eachRegion(ctx, r, res, func(region []byte) bool {
		defer func() { sc.bad.at.Offset += int64(len(region)) }()
		if sc.s.opts.Matches {
			sc.regionHits(region, st, res)
			return false
		}
		return sc.regionFound(region, st, res)
	}); err != nil && ctx.Err() == nil {
		res.Errs = append(res.Errs, fmt.Errorf("reading %s: %w", f.Path, err))
	}
}

// firstRawHit scans a file's raw bytes for the terms not yet found and
// returns the offset of the line where the first hit lies (or of an
// earlier line start). A stored tool result is content whole: a raw hit
// there is found, and hit stays false.
func (sc *Scanner) firstRawHit(ctx context.Context, f File, res *Result) (lineStart int64, hit bool) {
	s := sc.s
	base := res.Bytes
	var lastNL int64 // a line start at or before every byte scanned so far
	sc.read(ctx, f.Path, res, func(buf []byte) bool {
		start := res.Bytes - base - int64(len(buf)) // buf[0]'s offset in the file
		first := -1                                 // the earliest hit of any term in buf
		for ti := range s.ms {
			if res.Found[ti] {
				continue
			}
			if f.Kind == KindToolResult {
				if s.ms[ti].find(buf, &sc.scratch) {
					res.Found[ti] = true
				}
				continue
			}
			var at int
			switch m := s.pre[ti].(type) {
			case nil:
				at = 0 // a term of escapable bytes: any line may hold it
			case *asciiMatcher:
				at = m.index(buf)
			default:
				at = -1
				if m.find(buf, &sc.scratch) {
					at = 0 // somewhere in buf: from the line before it
				}
			}
			if at >= 0 && (first < 0 || at < first) {
				first = at
			}
		}
		if first >= 0 {
			if j := bytes.LastIndexByte(buf[:first], '\n'); j >= 0 {
				lineStart = start + int64(j) + 1
			} else {
				lineStart = lastNL
			}
			hit = true
			return true
		}
		if f.Kind == KindToolResult {
			return sc.decided(res)
		}
		if j := bytes.LastIndexByte(buf, '\n'); j >= 0 {
			lastNL = start + int64(j) + 1
		}
		return false
	})
	return lineStart, hit
}

// anyRawHit reports whether a file's raw bytes hold any term (its
// prefilter part in a transcript).
func (sc *Scanner) anyRawHit(ctx context.Context, f File, res *Result) bool {
	s := sc.s
	hit := false
	sc.read(ctx, f.Path, res, func(buf []byte) bool {
		for ti := range s.ms {
			m := s.pre[ti]
			if f.Kind == KindToolResult {
				m = s.ms[ti]
			}
			if m == nil || m.find(buf, &sc.scratch) {
				hit = true
				return true
			}
		}
		return false
	})
	return hit
}

// openLines opens a file for reading in lines from offset from (a line
// start): a plain one directly, an archive (by name or by magic number)
// through transcript.Open, its first bytes skipped.
func (sc *Scanner) openLines(path string, from int64) (io.Reader, io.Closer, error) {
	if transcript.CompressionOf(path) == transcript.Plain {
		f, err := openPlain(path)
		if err != nil {
			return nil, nil, err
		}
		var magic [4]byte
		n, _ := f.ReadAt(magic[:], 0)
		if !bytes.HasPrefix(magic[:n], gzipMagic) && !bytes.HasPrefix(magic[:n], zstdMagic) {
			return io.NewSectionReader(f, from, f.size-from), f, nil
		}
		f.Close()
	}
	r, c, err := sc.openArchive(path)
	if err != nil {
		return nil, nil, err
	}
	if _, err := io.CopyN(io.Discard, r, from); err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return r, c, nil
}

// eachRegion reads r and calls fn with regions of whole lines: all the
// lines that fit the buffer, the last one's newline included (at the end
// of r, the rest as it is). The buffer grows to hold the longest line.
// fn returning true stops the read.
func (sc *Scanner) eachRegion(ctx context.Context, r io.Reader, res *Result, fn func(region []byte) bool) error {
	if len(sc.lbuf) == 0 {
		sc.lbuf = make([]byte, sc.s.opts.BufSize)
	}
	keep := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := readFull(r, sc.lbuf[keep:])
		res.Bytes += int64(n)
		sc.s.Bytes.Add(int64(n))
		end := keep + n
		if err != nil && err != io.EOF {
			return err
		}
		eof := err == io.EOF
		cut := end
		if !eof {
			cut = bytes.LastIndexByte(sc.lbuf[:end], '\n') + 1
			if cut == 0 {
				// One line fills the buffer: make room for more of it.
				sc.lbuf = slices.Grow(sc.lbuf[:end], len(sc.lbuf))
				sc.lbuf = sc.lbuf[:cap(sc.lbuf)]
				keep = end
				continue
			}
		}
		if cut > 0 && fn(sc.lbuf[:cut]) {
			return nil
		}
		if eof {
			return nil
		}
		keep = copy(sc.lbuf, sc.lbuf[cut:end])
	}
}

// regionFound looks in a region for the terms not yet found in the
// session's content, and reports whether the session is decided.
func (sc *Scanner) regionFound(region []byte, st *fileState, res *Result) bool {
	s := sc.s
	for ti := range s.ms {
		if !res.Found[ti] {
			res.Found[ti] = sc.regionHolds(region, st.f.Kind, ti, &st.ts)
		}
	}
	return sc.decided(res)
}

// regionHolds reports whether term ti lies in the content of a region of
// whole lines of a file of kind: anywhere in a stored tool result, which
// is content whole; in a transcript, in a content string of a line whose
// raw bytes hold the term's prefilter part.
func (sc *Scanner) regionHolds(region []byte, kind string, ti int, ts *textScratch) bool {
	return sc.regionHoldsAlso(region, kind, ti, ts, nil)
}

// regionHoldsAlso is regionHolds that, in a transcript, also looks for
// the other terms not yet found (also[tj] false; also nil: none) in each
// content string it decodes on the way to term ti, and sets also[tj]
// for each it finds: a string decoded for one term is not decoded again
// for another. It neither reads further nor decodes more for them.
func (sc *Scanner) regionHoldsAlso(region []byte, kind string, ti int, ts *textScratch, also []bool) bool {
	s := sc.s
	if kind == KindToolResult {
		return s.ms[ti].find(region, &sc.scratch)
	}
	found := false
	// The fast path (slowContent off): a content string whose raw JSON
	// bytes lack the term's prefilter part is not decoded when no escape
	// there can hide a byte of it (writesHidden): a decoded string
	// holding the term then holds that part in its raw bytes. A decoded
	// one is searched with the raw matcher, which folds only around a
	// character that can give part of the term, not the whole string.
	// The other terms wanted (also) are looked for in each string decoded
	// whose raw bytes hold their own prefilter part, so that a line one
	// is seen in is a line the scan would look at for it.
	var keep func(raw []byte) bool
	var others []int
	var rawHas []bool // per term: the string keep last saw holds its prefilter part
	if pm := s.pre[ti]; pm != nil && !slowContent {
		for tj, f := range also {
			if tj != ti && !f {
				others = append(others, tj)
			}
		}
		if len(others) > 0 {
			rawHas = make([]bool, len(s.ms))
		}
		keep = func(raw []byte) bool {
			k := pm.find(raw, &sc.scratch)
			for _, tj := range others {
				rawHas[tj] = !also[tj] && (s.pre[tj] == nil || s.pre[tj].find(raw, &sc.scratch))
				k = k || rawHas[tj]
			}
			return k || writesHidden(raw)
		}
	}
	sc.eachCandidate(region, ti, func(line []byte) bool {
		_, err := walkContentKept(line, nil, keep, func(_ *Place, text []byte) bool {
			if slowContent {
				found = s.tms[ti].contains(text, ts)
				return !found
			}
			for _, tj := range others {
				if rawHas[tj] && s.ms[tj].find(text, &sc.scratch) {
					also[tj] = true
				}
			}
			found = s.ms[ti].find(text, &sc.scratch)
			return !found
		})
		if err != nil {
			sc.undecodable(region, line)
		}
		return !found
	})
	return found
}

// slowContent turns regionHolds' fast path off: every content string of
// a candidate line decoded and folded whole (textMatcher), the twin that
// TestRegionHoldsFastIsSlow holds it to.
var slowContent = false

// eachCandidate calls fn with each line of region in which the raw pass
// sees term ti's prefilter bytes, in order, until fn returns false.
func (sc *Scanner) eachCandidate(region []byte, ti int, fn func(line []byte) bool) {
	pm := sc.s.pre[ti]
	if pm == nil {
		eachLine(region, fn)
		return
	}
	if am, ok := pm.(*asciiMatcher); ok {
		for from := 0; from < len(region); {
			p := am.index(region[from:])
			if p < 0 {
				return
			}
			p += from
			ls := bytes.LastIndexByte(region[:p], '\n') + 1
			le := len(region)
			if i := bytes.IndexByte(region[p:], '\n'); i >= 0 {
				le = p + i
			}
			if !fn(region[ls:le]) {
				return
			}
			from = le + 1
		}
		return
	}
	// A folding matcher tells only whether a piece holds the term: ask
	// the region once, then each line.
	if !pm.find(region, &sc.scratch) {
		return
	}
	eachLine(region, func(line []byte) bool {
		if pm.find(line, &sc.scratch) {
			return fn(line)
		}
		return true
	})
}

// eachLine calls fn with each line of region (without its newline) until
// fn returns false.
func eachLine(region []byte, fn func(line []byte) bool) {
	for len(region) > 0 {
		line := region
		if i := bytes.IndexByte(region, '\n'); i >= 0 {
			line, region = region[:i], region[i+1:]
		} else {
			region = nil
		}
		if !fn(line) {
			return
		}
	}
}

// regionHits collects every hit of every term in a region's lines.
func (sc *Scanner) regionHits(region []byte, st *fileState, res *Result) {
	s := sc.s
	eachLine(region, func(line []byte) bool {
		if st.f.Kind == KindToolResult {
			sc.textHits(line, recordMeta{}, &Place{Where: WhereToolResult}, st, res)
			return true
		}
		candidate := hasToolUse(line)
		for _, pm := range s.pre {
			if candidate {
				break
			}
			candidate = pm == nil || pm.find(line, &sc.scratch)
		}
		if !candidate {
			return true
		}
		var places []*Place
		var texts [][]byte
		meta, err := walkContent(line, st.names, func(p *Place, text []byte) bool {
			places = append(places, p)
			texts = append(texts, text)
			return true
		})
		if err != nil {
			sc.undecodable(region, line)
		}
		for i, text := range texts {
			sc.textHits(text, meta, places[i], st, res)
		}
		return true
	})
}

// textHits adds the hits of every term in one content string, in the
// order they occur.
func (sc *Scanner) textHits(text []byte, meta recordMeta, p *Place, st *fileState, res *Result) {
	s := sc.s
	first := len(res.Hits)
	for ti, tm := range s.tms {
		tm.each(text, &st.ts, func(start, end int) bool {
			res.Found[ti] = true
			snip, a, b := snippet(text, start, end, s.opts.Context)
			res.Hits = append(res.Hits, Hit{
				Path: st.f.Path, Kind: st.f.Kind, AgentID: meta.agentID, UUID: meta.uuid, Timestamp: meta.timestamp,
				Place: *p, Term: ti, Snippet: snip, Start: a, End: b,
				// start orders the hits of one string below.
			})
			res.Hits[len(res.Hits)-1].order = start
			return true
		})
	}
	slices.SortStableFunc(res.Hits[first:], func(a, b Hit) int { return a.order - b.order })
}
