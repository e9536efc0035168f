package searchindex

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ccpipe/ccpipe/lib/bytescan"
	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/search"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// Name is the index's name under the cache dir: the manifest
// <cache>/grep-index.cache (a lib/cache store, so named by cache.File;
// one entry per file indexed, with
// its stamp, how far it is indexed and where its documents lie) and the
// segments in <cache>/grep-index/.
const Name = "grep-index"

// formatVersion names what an index holds: the segment format, the
// documents' cut and the content rules (with cache.Version, any other
// build of ccpipe starts a new index).
var formatVersion = "grep-index-3"

var (
	// segTarget is how much folded content a segment holds before it is
	// written: the build's memory, and the unit of the query's work.
	segTarget int64 = 16 << 20
	// smallSegment is the size under which a segment file counts as
	// small (what one run's updates write), and maxSmall how many of
	// them are kept: past it, the files with a piece in one are dropped
	// from the manifest at the end of a run and indexed again, together,
	// by the next.
	smallSegment int64 = 1 << 20
	maxSmall           = 16
	// gcAge: a segment no entry names is deleted once this old (a younger
	// one may be another run's, about to be named).
	gcAge = 10 * time.Minute
)

// Index answers cc-grep's content search for sessions whose files it
// holds, and indexes the files it does not hold yet (or the part of them
// appended since) as it answers. It implements search.Answerer.
type Index struct {
	dir      string // the segments
	cacheDir string
	// store (the manifest) and dirs (the directory listings, dirs.go)
	// are read when first asked for (manifest, listings): a search
	// whose sessions all check out against their snapshots (snapshot.go)
	// needs neither.
	store     atomic.Pointer[cache.Store]
	dirs      atomic.Pointer[cache.Store]
	storeOnce sync.Once
	dirsOnce  sync.Once
	snaps     *cache.Store // the sessions' snapshots (snapshot.go)
	// checked: the sessions answered from their snapshots in this run
	// (their files then count as looked up in the stores: Close).
	checkedMu sync.Mutex
	checked   []checkedSnap
	version   uint64
	q         *query
	first     bool // the manifest was empty (First)

	firstOnce sync.Once

	// writable: the segments dir takes files; probed at the first
	// write this run needs (a warm search needs none: probe's create
	// and remove were 3-4% of one), false after a write failed.
	writable  atomic.Bool
	probeOnce sync.Once
	wrote     atomic.Bool // a segment was written in this run
	mu        sync.Mutex  // segs, pending
	segs      map[uint64]*segState
	pending   []*pendingPiece
	pendText  int64
	flushMu   sync.Mutex
	counts    []uint32 // invert's, kept zero between segments
	seenTri   []uint64
	saveErr   error

	// listed: what a file listing saw of each transcript (Listed), set
	// before the search starts and only read while it runs.
	listed map[string]listedSession
	// seenDirs: what readDir found of each directory in this run (a
	// listing, or that it is missing).
	seenDirs sync.Map

	builders  sync.Pool
	bufs      sync.Pool // *[]byte: verify's read buffers
	scratches sync.Pool // *scratch
	// Indexed counts the bytes read to index in this run; Answered the
	// sessions answered from the index, Scanned those left to the scan.
	Indexed, Answered, Scanned atomic.Int64
	// fromSnap counts the sessions answered from their snapshots;
	// proofs the terms found by a token, unread (tokens.go).
	fromSnap, proofs atomic.Int64
}

// query is what the index needs of the terms.
type query struct {
	s *search.Searcher
	// tris holds each term's distinct trigrams, folded; nil for a term
	// that has none (shorter than a trigram folded): the index cannot
	// narrow on it.
	tris [][]uint32
	// toks holds each term's folding when it can be a whole token
	// (tokenOf), else nil: a document holding it as a token holds the
	// term (tokens.go).
	toks [][]byte
	// sessionScan: the index only picks the sessions, which are then
	// scanned (--matches, or a term the index cannot see).
	sessionScan bool
}

// Usable tells whether the index can help with a search: not --raw, and
// some term it can narrow on that the answer depends on (every term with
// --any, one at least without).
func Usable(o search.Options) bool {
	if o.Raw {
		return false
	}
	n := 0
	for _, t := range o.Terms {
		if termTrigrams(t) != nil {
			n++
		}
	}
	return n == len(o.Terms) || (!o.Any && n > 0)
}

// termTrigrams returns the distinct trigrams of a term's folding, nil
// when it has none or holds a line break (documents are cut between
// lines, and no trigram is taken across one).
func termTrigrams(term string) []uint32 {
	if strings.ContainsAny(term, "\n\r") {
		return nil
	}
	f := search.FoldTerm(term)
	var ts []uint32
	for i := 0; i+2 < len(f); i++ {
		t := uint32(f[i])<<16 | uint32(f[i+1])<<8 | uint32(f[i+2])
		if !slices.Contains(ts, t) {
			ts = append(ts, t)
		}
	}
	return ts
}

// Open opens the index under cacheDir for the searcher's terms. It never
// fails: an index that is missing, of another version or damaged is
// empty, and one that cannot be written is only read.
func Open(cacheDir string, s *search.Searcher) *Index {
	h := fnv.New64a()
	h.Write([]byte(cache.Version(formatVersion)))
	ix := &Index{
		// The segments' dir is named as the manifest is (cache.File): a
		// build that keeps files of its own never deletes another's
		// segments as unnamed.
		dir:      cache.File(cacheDir, Name, ""),
		cacheDir: cacheDir,
		snaps:    cache.Open(cacheDir, snapsName, formatVersion),
		version:  h.Sum64(),
		segs:     map[uint64]*segState{},
		q:        &query{s: s},
	}
	o := s.Opts()
	for _, t := range o.Terms {
		ts := termTrigrams(t)
		ix.q.tris = append(ix.q.tris, ts)
		var tok []byte
		if ts != nil {
			tok = tokenOf(search.FoldTerm(t))
		}
		ix.q.toks = append(ix.q.toks, tok)
		if ts == nil {
			ix.q.sessionScan = true
		}
	}
	if o.Matches {
		ix.q.sessionScan = true
	}
	ix.builders.New = func() any { return newBuilder(ix.q) }
	ix.bufs.New = func() any { return new([]byte) }
	ix.scratches.New = func() any { return new(scratch) }
	return ix
}

// probe makes the segments dir and checks that a file can be written
// in it.
func probe(dir string) bool {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false
	}
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return false
	}
	f.Close()
	return os.Remove(f.Name()) == nil
}

// listedSession is what a listing saw of a session (Listed).
type listedSession struct {
	stamp cache.Stamp
	noDir bool
}

// Listed hands the index what the file listing just saw of a session: its
// transcript's stamp (a stat, symlinks followed, as prepare's own), and
// that its project dir held nothing named as its session dir (so neither
// it nor its subagents/ and tool-results/ exist). The index then takes
// them from there instead of asking the system again: the same facts,
// from a stat and a directory read made in this run. Call it before the
// search starts.
func (ix *Index) Listed(transcriptPath string, st cache.Stamp, noSessionDir bool) {
	if ix.listed == nil {
		ix.listed = map[string]listedSession{}
	}
	ix.listed[transcriptPath] = listedSession{st, noSessionDir}
}

// First reports that the index was empty: this run builds it. Ask
// before the search starts. It waits for the manifest, which Open does
// not: its decode goes on beside the file listing.
func (ix *Index) First() bool {
	ix.firstOnce.Do(func() {
		n := 0
		ix.snaps.Each(func(string, *cache.Entry) { n++ })
		if n == 0 {
			ix.manifest().Each(func(string, *cache.Entry) { n++ })
		}
		ix.first = n == 0
	})
	return ix.first && ix.canWrite()
}

// Writable reports whether the index can be written.
func (ix *Index) Writable() bool { return ix.canWrite() }

// canWrite is Writable: the probe made once, when first asked.
func (ix *Index) canWrite() bool {
	ix.probeOnce.Do(func() { ix.writable.Store(probe(ix.dir)) })
	return ix.writable.Load()
}

// manifest is the index's store, read when first asked for.
func (ix *Index) manifest() *cache.Store {
	ix.storeOnce.Do(func() { ix.store.Store(cache.Open(ix.cacheDir, Name, formatVersion)) })
	return ix.store.Load()
}

// listings is the store of the kept directory listings, read when first
// asked for.
func (ix *Index) listings() *cache.Store {
	ix.dirsOnce.Do(func() { ix.dirs.Store(cache.Open(ix.cacheDir, dirsName, formatVersion)) })
	return ix.dirs.Load()
}

// Dir is where the segments live.
func (ix *Index) Dir() string { return ix.dir }

// ref is a piece of a file in a segment: documents lo to hi-1.
type ref struct {
	seg    uint64
	lo, hi uint32
}

func encodeRefs(refs []ref) []byte {
	b := cache.AppendUvarint(nil, uint64(len(refs)))
	for _, r := range refs {
		b = cache.AppendU64(b, r.seg)
		b = cache.AppendUvarint(b, uint64(r.lo))
		b = cache.AppendUvarint(b, uint64(r.hi))
	}
	return b
}

func decodeRefs(b []byte) ([]ref, bool) {
	d := cache.NewDecoder(b)
	n := d.Count()
	refs := make([]ref, 0, n)
	for i := 0; i < n; i++ {
		r := ref{seg: d.U64(), lo: uint32(d.Uvarint()), hi: uint32(d.Uvarint())}
		if r.lo > r.hi {
			d.Fail()
		}
		refs = append(refs, r)
	}
	return refs, d.Done()
}

// segState is a segment as this run uses it: opened once, and each
// term's candidate documents computed once.
type segState struct {
	once  sync.Once
	seg   *segment
	err   error
	cand  []candidates
	proof []candidates // tokenDocs' per term
}

type candidates struct {
	once sync.Once
	docs []uint32
	err  error
}

func segName(id uint64) string { return fmt.Sprintf("%016x.trgm", id) }

func (ix *Index) segment(id uint64) *segState {
	ix.mu.Lock()
	ss := ix.segs[id]
	if ss == nil {
		ss = &segState{cand: make([]candidates, len(ix.q.tris)), proof: make([]candidates, len(ix.q.tris))}
		ix.segs[id] = ss
	}
	ix.mu.Unlock()
	ss.once.Do(func() { ss.seg, ss.err = openSegment(filepath.Join(ix.dir, segName(id)), ix.version) })
	return ss
}

// termDocs returns the documents of a segment that hold every trigram of
// term ti: the intersection of their posting lists.
func (ix *Index) termDocs(ss *segState, ti int) ([]uint32, error) {
	c := &ss.cand[ti]
	c.once.Do(func() { c.docs, c.err = ss.seg.allOf(ix.q.tris[ti]) })
	return c.docs, c.err
}

// part is one file of a session as the index sees it: its pieces in
// segments, a piece indexed in this run, and a rest no piece covers (a
// line still being written), which every term may lie in.
type part struct {
	// f is the file; from a snapshot, its Path is made only when the
	// file is read (sessDir/rel, path).
	f       search.File
	sessDir string
	rel     string
	archive bool
	// fresh: the file is as the manifest holds it, whole (st its stamp):
	// a snapshot may keep it.
	fresh bool
	st    cache.Stamp
	// open: the file as verify opened it, kept for the session's other
	// terms (two common terms read one file twice).
	open     search.RegionReader
	refs     []ref
	pend     *piece
	restFrom int64 // -1: none
	restTo   int64
}

// closeParts closes the files verify opened.
func closeParts(parts []part) {
	for i := range parts {
		if parts[i].open != nil {
			parts[i].open.Close()
			parts[i].open = nil
		}
	}
}

// path makes the file's path when a snapshot gave it apart.
func (p *part) path() {
	if p.f.Path == "" {
		p.f.Path = underSession(p.sessDir, p.rel)
	}
}

// pendingPiece is a piece indexed in this run, written with the next
// segment; its file's entry is then put in the manifest.
type pendingPiece struct {
	path  string
	refs  []ref // the file's pieces before this one
	stamp cache.Stamp
	off   int64 // the manifest entry's offset
	tail  uint64
	p     *piece
}

// Answer answers for one session: ok false leaves it to the scan (a file
// that cannot be stat'ed, read or indexed: the scan reports it).
func (ix *Index) Answer(ctx context.Context, sc *search.Scanner, transcriptPath string) (search.Result, bool) {
	r, ok := ix.answer(ctx, sc, transcriptPath)
	if ok {
		ix.Answered.Add(1)
	} else {
		ix.Scanned.Add(1)
	}
	return r, ok
}

func (ix *Index) answer(ctx context.Context, sc *search.Scanner, transcriptPath string) (search.Result, bool) {
	ls, listed := ix.listed[transcriptPath]
	sp := ix.scratches.Get().(*scratch)
	defer func() {
		sp.clear()
		ix.scratches.Put(sp)
	}()
	if useSnapshots {
		if sn := ix.snapshot(transcriptPath, ls, listed, sp); sn != nil {
			res, ok, _ := ix.answerFrom(ctx, sc, transcriptPath, sn, sp)
			if !sn.stale {
				if ok {
					if res.Matched {
						sn.keepListings()
					}
					ix.noteChecked(transcriptPath, sn)
					ix.fromSnap.Add(1)
				}
				return res, ok
			}
			sp.clear() // of what the snapshot's try used
		}
	}
	src := &slowSource{ix: ix, sessDir: layout.SessionDir(transcriptPath), ls: ls, listed: listed}
	res, ok, all := ix.answerFrom(ctx, sc, transcriptPath, src, sp)
	if ok && all {
		ix.record(transcriptPath, src, sp.parts)
	}
	return res, ok
}

// source is where answerFrom takes a session's files from: the manifest
// and the kept listings (slowSource), or the session's snapshot.
type source interface {
	// list lists the session's files, its main transcript first, as
	// search.AppendSessionFiles (appending to sp's).
	list(sp *scratch, transcriptPath string) ([]search.File, error)
	// prepare returns file i of the session, as Index.prepare.
	prepare(i int, f search.File, sc *search.Scanner) (part, bool)
	// confirm checks the listing before any file but the first is used
	// (nil: as listed).
	confirm() error
}

// slowSource is the manifest and the listings, which index what they do
// not hold; it remembers the dirs it was asked for (record).
type slowSource struct {
	ix      *Index
	sessDir string
	ls      listedSession
	listed  bool
	asked   []askedDir
}

type askedDir struct {
	dir string
	l   *listing // nil: the listing saw no session dir (Listed)
}

func (s *slowSource) list(sp *scratch, transcriptPath string) ([]search.File, error) {
	return search.AppendSessionFiles(sp.files[:0], transcriptPath, s.readDir)
}

func (s *slowSource) readDir(dir string) ([]fs.DirEntry, error) {
	if dir == s.sessDir && s.listed && s.ls.noDir {
		s.asked = append(s.asked, askedDir{dir, nil})
		return noSessionDir(dir)
	}
	l := s.ix.listDir(dir)
	s.asked = append(s.asked, askedDir{dir, l})
	return l.ents, l.err
}

func (s *slowSource) confirm() error { return nil } // listed as read

func (s *slowSource) prepare(i int, f search.File, sc *search.Scanner) (part, bool) {
	var known *cache.Stamp
	if i == 0 && s.listed {
		known = &s.ls.stamp // files[0] is the transcript
	}
	return s.ix.prepare(f, known, sc)
}

// answerFrom answers for a session from src; all says that every one of
// its files was prepared (the main transcript did not decide alone).
func (ix *Index) answerFrom(ctx context.Context, sc *search.Scanner, transcriptPath string, src source, sp *scratch) (res search.Result, ok, all bool) {
	files, err := src.list(sp, transcriptPath)
	sp.files = files
	if err != nil {
		return search.Result{}, false, false
	}
	parts := sp.parts[:0]
	defer func() {
		closeParts(parts)
		sp.parts = parts // as grown
	}()
	q := ix.q
	nt := len(q.tris)
	res = search.Result{Found: make([]bool, nt)}
	// checked[ti]: term ti was verified in the parts before this many.
	checked := sp.ints(nt)
	for i, f := range files {
		if i == 1 && src.confirm() != nil {
			return search.Result{}, false, false
		}
		p, ok := src.prepare(i, f, sc)
		if !ok {
			return search.Result{}, false, false
		}
		parts = append(parts, p)
		if i == 0 && len(files) > 1 && !q.sessionScan {
			// A session its main transcript decides as matching is
			// answered without a look at its other files, as the scan
			// stops at the first file that decides it.
			decided, err := ix.decideFirst(ctx, sc, &parts[0], &res, checked)
			if err != nil {
				return search.Result{}, false, false
			}
			if !decided {
				continue
			}
			_, slow := src.(*slowSource)
			if slow && (ix.First() || (useSnapshots && p.fresh && ix.canWrite())) {
				// The first build indexes every file, so the next
				// search reads only what changed, whatever this
				// one's terms decided; a session without a snapshot
				// gets one (record), so the next reads none of it (an
				// error here is the next search's to meet).
				all = true
				for j, f := range files[1:] {
					p, ok := src.prepare(j+1, f, sc)
					all = all && ok
					parts = append(parts, p)
				}
				return res, true, all
			}
			return res, true, false
		}
	}
	if len(files) == 1 && src.confirm() != nil {
		return search.Result{}, false, false
	}
	// Which terms may lie in the session at all.
	may := make([]bool, nt)
	cands := make([][]docList, nt) // per term, per part
	sp.docs = slices.Grow(sp.docs[:0], nt*len(parts))[:nt*len(parts)]
	for ti := range nt {
		cands[ti] = sp.docs[ti*len(parts) : (ti+1)*len(parts)]
		may[ti] = res.Found[ti]
		for pi := checked[ti]; pi < len(parts); pi++ {
			docs, err := ix.partDocs(&parts[pi], ti)
			if err != nil {
				return search.Result{}, false, false
			}
			cands[ti][pi] = docs
			may[ti] = may[ti] || docs.len() > 0
		}
	}
	if !q.s.Matched(may) {
		return res, true, true // some term is in no document: no match
	}
	if q.sessionScan {
		return sc.Session(ctx, transcriptPath), true, true
	}
	// The term with the fewest candidates first: without it (every
	// term), or with it (any), the session is decided soonest.
	order := make([]int, nt)
	size := make([]int, nt)
	for i := range order {
		order[i] = i
		for _, docs := range cands[i] {
			size[i] += docs.len()
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return size[a] - size[b] })
	also := alsoFound(q.s, res.Found)
	for _, ti := range order {
		for pi := checked[ti]; pi < len(parts) && !res.Found[ti]; pi++ {
			found, err := ix.verify(&parts[pi], sc, ti, &cands[ti][pi], also)
			if err != nil {
				return search.Result{}, false, false
			}
			res.Found[ti] = found
		}
		if res.Found[ti] == q.s.Opts().Any {
			break // decided
		}
		if ctx.Err() != nil {
			return res, true, true
		}
	}
	res.Matched = q.s.Matched(res.Found)
	return res, true, true
}

// scratch is what answer works in, kept for the next session one of
// the workers answers (a warm search answers thousands: their slices
// were a tenth of its memory, each page of it faulted in afresh).
type scratch struct {
	files []search.File
	parts []part
	docs  []docList
	is    []int
	snap  snapshot
}

// ints returns n zeros.
func (sp *scratch) ints(n int) []int {
	sp.is = slices.Grow(sp.is[:0], n)[:n]
	clear(sp.is)
	return sp.is
}

// clear drops what the slices point to (pieces, file names) before the
// scratch is kept.
// Only what a session used is cleared (the rest was by the session that
// used it): a worker's slices grow to its largest session's, and
// clearing them whole for each session was a tenth of a warm search.
func (sp *scratch) clear() {
	clear(sp.files)
	clear(sp.parts)
	clear(sp.docs)
	clear(sp.snap.dirs)
	clear(sp.snap.files)
	sp.snap = snapshot{dirs: sp.snap.dirs[:0], files: sp.snap.files[:0]}
}

// decideFirst verifies the terms in a session's main transcript, the
// term with the fewest candidates first, until the session is known to
// match (every term found, or any with Any) or one term, needed, is not
// there (the other files must then be looked at). checked records the
// terms verified in it; res.Found those found.
func (ix *Index) decideFirst(ctx context.Context, sc *search.Scanner, p *part, res *search.Result, checked []int) (bool, error) {
	nt := len(ix.q.tris)
	cands := make([]docList, nt)
	order := make([]int, nt)
	for ti := range nt {
		docs, err := ix.partDocs(p, ti)
		if err != nil {
			return false, err
		}
		cands[ti], order[ti] = docs, ti
	}
	slices.SortStableFunc(order, func(a, b int) int { return cands[a].len() - cands[b].len() })
	anyTerm := ix.q.s.Opts().Any
	also := alsoFound(ix.q.s, res.Found)
	for _, ti := range order {
		if res.Found[ti] {
			checked[ti] = 1 // seen while verifying another term
			continue
		}
		if !anyTerm && cands[ti].len() == 0 {
			return false, nil // not here: the other files decide
		}
		found, err := ix.verify(p, sc, ti, &cands[ti], also)
		if err != nil {
			return false, err
		}
		res.Found[ti], checked[ti] = found, 1
		if found == anyTerm {
			break
		}
		if ctx.Err() != nil {
			return false, nil
		}
	}
	if res.Matched = ix.q.s.Matched(res.Found); res.Matched {
		return true, nil
	}
	return false, nil
}

// docList is a part's candidate documents for a term, in file order:
// those of its pieces in segments (each piece's numbers shared with the
// segment's candidates, decoded from its document table as asked: a
// common term has thousands, and verify stops at the first that holds
// it), then those indexed in this run and the rest no piece covers.
type docList struct {
	segs  []segDocs
	extra []span
	n     int
}

// segDocs is a piece's candidates: docs, or with all every document from
// lo to hi-1. Their spans are in the segment's document table, read when
// first needed (tables): a term a token proves needs none.
type segDocs struct {
	seg    *segment
	tab    docTable
	docs   []uint32
	all    bool
	lo, hi uint32
}

func (l *docList) len() int { return l.n }

// tables reads the document tables spans reads the candidates from.
func (l *docList) tables() error {
	for i := range l.segs {
		s := &l.segs[i]
		if s.tab != nil {
			continue
		}
		tab, err := s.seg.spans()
		if err != nil || int(s.hi) > tab.len() {
			return errBad
		}
		s.tab = tab
	}
	return nil
}

// spans yields the documents in order (tables first).
func (l *docList) spans() iter.Seq[span] {
	return func(yield func(span) bool) {
		for _, s := range l.segs {
			if s.all {
				for d := s.lo; d < s.hi; d++ {
					if !yield(s.tab.at(d)) {
						return
					}
				}
				continue
			}
			for _, d := range s.docs {
				if !yield(s.tab.at(d)) {
					return
				}
			}
		}
		for _, d := range l.extra {
			if !yield(d) {
				return
			}
		}
	}
}

// partDocs returns the documents of a part that may hold term ti, in
// file order; a term the index cannot see may lie anywhere.
func (ix *Index) partDocs(p *part, ti int) (docList, error) {
	var out docList
	all := ix.q.tris[ti] == nil
	for _, r := range p.refs {
		ss := ix.segment(r.seg)
		if ss.err != nil {
			return docList{}, ss.err
		}
		sd := segDocs{seg: ss.seg, all: all, lo: r.lo, hi: r.hi}
		if !all {
			docs, err := ix.termDocs(ss, ti)
			if err != nil {
				return docList{}, err
			}
			i := sort.Search(len(docs), func(i int) bool { return docs[i] >= r.lo })
			j := i + sort.Search(len(docs)-i, func(k int) bool { return docs[i+k] >= r.hi })
			if i == j {
				continue // no candidate here: the document table is not read
			}
			sd.docs = docs[i:j:j]
		}
		if all {
			out.n += int(r.hi - r.lo)
		} else {
			out.n += len(sd.docs)
		}
		out.segs = append(out.segs, sd)
	}
	if p.pend != nil {
		for d, s := range p.pend.docs {
			if all || p.pend.cand[ti][d] {
				out.extra = append(out.extra, s)
			}
		}
	}
	if p.restFrom >= 0 && p.restTo > p.restFrom {
		out.extra = append(out.extra, span{p.restFrom, p.restTo})
	}
	out.n += len(out.extra)
	return out, nil
}

// alsoFound is what verify fills with the other terms it sees on the way
// to one: the session's found terms when every term is needed (a term
// seen is then not verified again), else nil (any one found decides).
func alsoFound(s *search.Searcher, found []bool) []bool {
	if s.Opts().Any {
		return nil
	}
	return found
}

// verifyFirst is how much of a candidate document verify reads and
// checks first; each next piece is twice the last.
var verifyFirst int64 = 8 << 10

// verify reads the candidate documents of a part in order and asks the
// scanner whether term ti lies in their content; also (nil, or the
// session's found terms) gets the other terms the scanner sees on the
// way (search.Scanner.RegionHoldsAlso).
func (ix *Index) verify(p *part, sc *search.Scanner, ti int, docs *docList, also []bool) (bool, error) {
	if docs.len() == 0 {
		return false, nil
	}
	if ok, err := ix.proven(p, ti); ok || err != nil {
		if ok {
			ix.proofs.Add(1)
		}
		return ok, err
	}
	if err := docs.tables(); err != nil {
		return false, err
	}
	p.path()
	bp := ix.bufs.Get().(*[]byte)
	defer ix.bufs.Put(bp)
	buf := *bp
	defer func() { *bp = buf }()
	if !p.archive {
		if p.open == nil {
			f, err := search.OpenRegions(p.f.Path)
			if err != nil {
				return false, err
			}
			p.open = f // closed with the session's parts (closeParts)
		}
		f := p.open
		for d := range docs.spans() {
			// A common term is most often in the document's first lines:
			// they are read and checked in growing pieces of whole lines
			// (verifyFirst bytes, then twice as many each time), and the
			// document is read on only while they do not hold it.
			n := d.end - d.start
			step := n
			if p.f.Kind != search.KindToolResult {
				// Transcript lines: no term spans two (a tool's output
				// is read whole).
				step = min(n, verifyFirst)
			}
			var read, checked int64
			for checked < n {
				next := min(n, read+step)
				// The buffer grows with what is read: a document is up to
				// 64 KiB of lines (or one longer line), most often decided
				// in its first piece.
				buf = slices.Grow(buf[:read], int(next-read))[:next]
				if _, err := f.ReadAt(buf[read:next], d.start+read); err != nil {
					return false, err
				}
				read, step = next, 2*step
				cut := read
				if read < n {
					cut = checked + int64(bytescan.LastIndexByte(buf[checked:read], '\n')+1)
				}
				if cut == checked {
					continue // inside a line: read on
				}
				sc.At(p.f.Path, d.start+checked)
				if sc.RegionHoldsAlso(buf[checked:cut], p.f.Kind, ti, also) {
					return true, nil
				}
				checked = cut
			}
		}
		return false, nil
	}
	rc, err := transcript.Open(p.f.Path)
	if err != nil {
		return false, err
	}
	defer rc.Close()
	var pos int64
	for d := range docs.spans() {
		if _, err := io.CopyN(io.Discard, rc, d.start-pos); err != nil {
			return false, err
		}
		buf = slices.Grow(buf[:0], int(d.end-d.start))[:d.end-d.start]
		if _, err := io.ReadFull(rc, buf); err != nil {
			return false, err
		}
		pos = d.end
		sc.At(p.f.Path, d.start)
		if sc.RegionHoldsAlso(buf, p.f.Kind, ti, also) {
			return true, nil
		}
	}
	return false, nil
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// prepare finds what the index holds of a file, and indexes what it does
// not: the whole file when it is new, rewritten, shrunk or replaced, or
// an archive that changed; only the appended lines of a transcript that
// grew. An unchanged file is not opened.
func (ix *Index) prepare(f search.File, known *cache.Stamp, sc *search.Scanner) (part, bool) {
	p := part{f: f, restFrom: -1}
	var st cache.Stamp
	if known != nil {
		st = *known
	} else {
		var mode fs.FileMode
		var err error
		if st, mode, err = cache.StatPath(f.Path); err != nil || mode != 0 {
			return p, false
		}
	}
	p.archive = transcript.CompressionOf(f.Path) != transcript.Plain
	p.st = st
	if e, ok := ix.manifest().Unchanged(f.Path, st); ok {
		if p.refs, ok = ix.liveRefs(e); ok {
			p.fresh = true
			return p, true
		}
	}
	fh, err := os.Open(f.Path)
	if err != nil {
		return p, false
	}
	defer fh.Close()
	if !p.archive {
		var magic [4]byte
		n, _ := fh.ReadAt(magic[:], 0)
		p.archive = bytes.HasPrefix(magic[:n], gzipMagic) || bytes.HasPrefix(magic[:n], zstdMagic)
	}
	lines := f.Kind != search.KindToolResult && !p.archive // read on from a line end when it grows
	var r io.ReaderAt
	if lines {
		r = fh
	}
	e, state := ix.manifest().Lookup(f.Path, st, r)
	var from int64
	if state != cache.Miss {
		refs, ok := ix.liveRefs(e)
		switch {
		case !ok:
			state = cache.Miss
		case state == cache.Fresh:
			p.refs = refs
			if lines && e.Offset < st.Size {
				p.restFrom, p.restTo = e.Offset, st.Size
			}
			return p, true
		case lines: // grown
			p.refs, from = refs, e.Offset
		default:
			state = cache.Miss
		}
	}
	if !ix.canWrite() {
		return p, false // not indexed in memory only: the scan is cheaper
	}
	b := ix.builders.Get().(*builder)
	defer ix.builders.Put(b)
	count := func(n int) {
		ix.Indexed.Add(int64(n))
		sc.Searcher().Bytes.Add(int64(n))
	}
	var pc *piece
	var covered int64
	if p.archive {
		rc, err := transcript.Open(f.Path)
		if err != nil {
			return p, false
		}
		pc, _, err = b.index(rc, 0, f.Kind != search.KindToolResult, f.Kind == search.KindTranscript, true, count)
		rc.Close()
		if err != nil {
			return p, false
		}
		covered = st.Size // of the compressed file: the entry's offset
	} else {
		pc, covered, err = b.index(io.NewSectionReader(fh, from, st.Size-from), from, lines, f.Kind == search.KindTranscript, !lines, count)
		if err != nil {
			return p, false
		}
		if covered < st.Size {
			p.restFrom, p.restTo = covered, st.Size
		}
	}
	p.pend = pc
	pp := &pendingPiece{path: f.Path, refs: p.refs, stamp: st, off: covered, p: pc}
	if !p.archive && covered > 0 {
		if pp.tail, err = cache.TailHash(fh, covered); err != nil {
			return p, true // answered from memory; not kept
		}
	}
	ix.add(pp)
	return p, true
}

// liveRefs decodes an entry's pieces and checks that their segments open.
func (ix *Index) liveRefs(e *cache.Entry) ([]ref, bool) { return ix.live(e.Data) }

// segmentsLive says the segments of refs open and hold their documents.
func (ix *Index) segmentsLive(refs []ref) bool {
	for _, r := range refs {
		ss := ix.segment(r.seg)
		if ss.err != nil || int(r.hi) > ss.seg.ndocs {
			return false
		}
	}
	return true
}

// add queues a piece for the next segment, and writes the segment once
// it holds segTarget bytes of content.
func (ix *Index) add(pp *pendingPiece) {
	ix.mu.Lock()
	ix.pending = append(ix.pending, pp)
	ix.pendText += pp.p.text + 1
	full := ix.pendText >= segTarget
	ix.mu.Unlock()
	if full {
		ix.flush()
	}
}

// flush writes the pending pieces as one segment and puts their files'
// entries in the manifest. A segment that cannot be written turns the
// index read-only for the rest of the run (the pieces answered already).
func (ix *Index) flush() {
	ix.flushMu.Lock()
	defer ix.flushMu.Unlock()
	ix.mu.Lock()
	pending := ix.pending
	ix.pending, ix.pendText = nil, 0
	ix.mu.Unlock()
	if len(pending) == 0 || !ix.canWrite() {
		return
	}
	var docs []span
	var tris [][]uint32
	for _, pp := range pending {
		docs = append(docs, pp.p.docs...)
		tris = append(tris, pp.p.tris...)
	}
	pieces := make([]*piece, len(pending))
	for i, pp := range pending {
		pieces[i] = pp.p
	}
	b, err := encodeSegment(ix.version, docs, tris, tokenLists(pieces), func() ([]uint32, []uint64) {
		if ix.counts == nil {
			ix.counts, ix.seenTri = make([]uint32, 1<<24), make([]uint64, 1<<24/64)
		}
		return ix.counts, ix.seenTri
	})
	var id uint64
	if err == nil {
		var rnd [8]byte
		_, _ = rand.Read(rnd[:])
		id = binary.LittleEndian.Uint64(rnd[:])
		err = cache.WriteFile(filepath.Join(ix.dir, segName(id)), b)
	}
	if err != nil {
		ix.saveErr = err
		ix.writable.Store(false)
		return
	}
	ix.wrote.Store(true)
	n := uint32(0)
	for _, pp := range pending {
		refs := append(slices.Clip(pp.refs), ref{seg: id, lo: n, hi: n + uint32(len(pp.p.docs))})
		n += uint32(len(pp.p.docs))
		ix.manifest().Put(pp.path, &cache.Entry{Stamp: pp.stamp, Offset: pp.off, Tail: pp.tail, Data: encodeRefs(refs)})
	}
}

// Close writes what this run indexed and the manifest, and deletes the
// segments no file needs. The error says why the index could not be
// written (the answers were right all the same).
func (ix *Index) Close() error {
	ix.flush()
	wrote := ix.wrote.Load()
	if wrote {
		ix.compact() // the small segments are as many as the last run left
	}
	// A run that only looked up (a warm search) writes nothing: the
	// entries of files gone since go with the next run that writes.
	// A store is written when it changed (an entry put or dropped, or a
	// damaged one read): only then is the dir probed, if it was not.
	ix.keepChecked()
	for _, st := range []*cache.Store{ix.store.Load(), ix.dirs.Load(), ix.snaps} {
		if ix.saveErr == nil && st != nil && st.Changed() && ix.canWrite() {
			ix.saveErr = st.SaveChanged()
		}
	}
	if ix.saveErr == nil && wrote {
		ix.gc() // a run that wrote no segment left none unnamed
	}
	ix.mu.Lock()
	for _, ss := range ix.segs {
		if ss.seg != nil {
			ss.seg.close()
		}
	}
	ix.mu.Unlock()
	if ix.saveErr != nil {
		return fmt.Errorf("search index not saved: %w", ix.saveErr)
	}
	return nil
}

// compact drops from the manifest the files with a piece in a small
// segment when there are too many of those: the next run indexes them
// again, together, into one.
func (ix *Index) compact() {
	small := map[uint64]bool{}
	ix.manifest().Each(func(_ string, e *cache.Entry) {
		refs, _ := decodeRefs(e.Data)
		for _, r := range refs {
			small[r.seg] = false
		}
	})
	n := 0
	for id := range small {
		if fi, err := os.Stat(filepath.Join(ix.dir, segName(id))); err == nil && fi.Size() < smallSegment {
			small[id] = true
			n++
		}
	}
	if n <= maxSmall {
		return
	}
	var drop []string
	ix.manifest().Each(func(path string, e *cache.Entry) {
		refs, _ := decodeRefs(e.Data)
		for _, r := range refs {
			if small[r.seg] {
				drop = append(drop, path)
				return
			}
		}
	})
	store := ix.manifest()
	for _, p := range drop {
		store.Delete(p)
	}
	ix.dropSnapshots(small)
}

// gc deletes the segments no entry names, once gcAge old, and leftovers
// of failed writes.
func (ix *Index) gc() {
	live := map[string]bool{}
	ix.manifest().Each(func(_ string, e *cache.Entry) {
		refs, _ := decodeRefs(e.Data)
		for _, r := range refs {
			live[segName(r.seg)] = true
		}
	})
	entries, err := os.ReadDir(ix.dir)
	if err != nil {
		return
	}
	for _, de := range entries {
		if live[de.Name()] {
			continue
		}
		if fi, err := de.Info(); err == nil && time.Since(fi.ModTime()) > gcAge {
			_ = os.Remove(filepath.Join(ix.dir, de.Name()))
		}
	}
}

// Stats is what the index holds.
type Stats struct {
	Files, Segments int
	Bytes           int64 // the segments' size
}

// Stat reports the index's files and size on disk.
func (ix *Index) Stat() Stats {
	var st Stats
	segs := map[uint64]bool{}
	ix.manifest().Each(func(_ string, e *cache.Entry) {
		st.Files++
		refs, _ := decodeRefs(e.Data)
		for _, r := range refs {
			segs[r.seg] = true
		}
	})
	for id := range segs {
		if fi, err := os.Stat(filepath.Join(ix.dir, segName(id))); err == nil {
			st.Segments++
			st.Bytes += fi.Size()
		}
	}
	return st
}

var _ search.Answerer = (*Index)(nil)
