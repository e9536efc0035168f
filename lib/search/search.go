package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync/atomic"
	"unicode/utf8"

	"github.com/ccpipe/ccpipe/lib/mapped"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// DefaultBufSize is the read buffer of one worker: big enough that a read
// costs little per byte, small enough to stay in the CPU cache while the
// terms are looked for in it.
const DefaultBufSize = 256 << 10

// Options configure a Searcher.
type Options struct {
	Terms []string
	// Any makes a session match when it holds at least one term; by
	// default it must hold every term.
	Any bool
	// Raw compares the terms with the raw bytes of the files, anywhere:
	// keys, ids and Claude Code's boilerplate included. By default a term
	// counts only where it lies in content (content.go), and a file
	// without its bytes is never decoded.
	Raw bool
	// Matches collects every occurrence in content of a matching session
	// (Result.Hits); every file of a session whose raw bytes match is
	// then read to the end. Not with Raw.
	Matches bool
	// Context is how many characters either side of a hit its snippet
	// keeps (with Matches).
	Context int
	// BufSize is the read buffer of each worker, and the piece of a
	// mapped window searched at once (DefaultBufSize when 0).
	BufSize int
}

// Searcher looks for literal terms in sessions. It is safe for concurrent
// use by several Scanners.
type Searcher struct {
	opts Options
	ms   []matcher // the terms, on raw bytes
	// pre are the raw matchers of the terms' prefilter parts (see
	// prefilterTerm), nil for a term that is all escapable bytes; tms
	// find the terms in decoded text.
	pre     []matcher
	tms     []*textMatcher
	preS    *Searcher // the session-level raw pass over pre
	order   []int     // term indices, the rarest anchor first
	overlap int
	// answerer, when set, answers for a session before a scan does.
	answerer Answerer
	// Bytes and Sessions count what was searched so far, for progress.
	Bytes    atomic.Int64
	Sessions atomic.Int64
}

// New checks the terms and prepares their matchers.
func New(o Options) (*Searcher, error) {
	if len(o.Terms) == 0 {
		return nil, errors.New("no search term")
	}
	if o.BufSize <= 0 {
		o.BufSize = DefaultBufSize
	}
	if o.Raw && o.Matches {
		return nil, errors.New("matches are found in content only, not with raw")
	}
	s := &Searcher{opts: o}
	for i, t := range o.Terms {
		if t == "" {
			return nil, errors.New("empty search term")
		}
		if !utf8.ValidString(t) {
			return nil, fmt.Errorf("term %q is not valid UTF-8", t)
		}
		m := newMatcher(t)
		s.ms = append(s.ms, m)
		s.order = append(s.order, i)
		s.overlap = max(s.overlap, m.overlap())
	}
	slices.SortStableFunc(s.order, func(a, b int) int { return s.ms[a].cost() - s.ms[b].cost() })
	if !o.Raw {
		if err := s.prepareContent(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Result is what a search found in one session.
type Result struct {
	Matched bool
	// Found tells, per term, whether it was seen. A term can stay false in
	// a session that holds it when the answer was known without it.
	Found []bool
	Hits  []Hit   // with Options.Matches, every occurrence in content, in file order
	Bytes int64   // bytes searched (decompressed)
	Errs  []error // files that could not be read to the end
	// Undecodable counts the lines whose raw bytes may hold a term but
	// which are not JSON records, so were skipped; UndecodableAt is the
	// first of them.
	Undecodable   int
	UndecodableAt LineAt
}

// Scanner searches one session at a time with its own buffers. Use one
// per goroutine.
type Scanner struct {
	s       *Searcher
	buf     []byte
	scratch []byte
	pre     *Scanner    // the raw pass of the content search
	lbuf    []byte      // the content search's line buffer, as big as the longest line
	ts      textScratch // RegionHolds' folding buffers
	bad     badLines    // the session's undecodable lines
}

// NewScanner returns a Scanner; its read buffer is made at its first
// read (a search answered from an index reads none).
func (s *Searcher) NewScanner() *Scanner {
	return &Scanner{s: s}
}

// Session searches the session whose main transcript is transcriptPath,
// its subagent transcripts and its stored tool results.
func (sc *Scanner) Session(ctx context.Context, transcriptPath string) Result {
	files, err := SessionFiles(transcriptPath)
	res := sc.Files(ctx, files)
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		res.Errs = append(res.Errs, j.Unwrap()...) // one warning line each
	} else if err != nil {
		res.Errs = append(res.Errs, err)
	}
	return res
}

// Files searches files as the files of one session, in order, and stops
// reading as soon as the answer is known.
func (sc *Scanner) Files(ctx context.Context, files []File) Result {
	s := sc.s
	res := Result{Found: make([]bool, len(s.ms))}
	sc.startBad()
	switch {
	case !s.opts.Raw:
		sc.content(ctx, files, &res)
	case s.opts.Any:
		for _, f := range files {
			sc.read(ctx, f.Path, &res, func(buf []byte) bool {
				for _, ti := range s.order {
					if s.ms[ti].find(buf, &sc.scratch) {
						res.Found[ti] = true
						return true
					}
				}
				return false
			})
			if slices.Contains(res.Found, true) {
				break
			}
		}
	default:
		sc.allTerms(ctx, files, &res)
	}
	res.Matched = s.Matched(res.Found)
	sc.takeBad(&res)
	s.Sessions.Add(1)
	return res
}

// allTerms decides "every term" lazily: it looks only for the rarest term
// until it shows up, since a session without it cannot match, and only
// then for the others. The part read before that is read again for the
// others only when they are still missing at the end.
func (sc *Scanner) allTerms(ctx context.Context, files []File, res *Result) {
	s := sc.s
	primary := s.order[0]
	narrowed := false // some input was searched for the primary term alone
	found := 0
	look := func(buf []byte, terms []int) bool {
		for _, ti := range terms {
			if !res.Found[ti] && s.ms[ti].find(buf, &sc.scratch) {
				res.Found[ti] = true
				found++
			}
		}
		return found == len(s.ms)
	}
	rescanUpTo := -1
	failed := make([]bool, len(files)) // reported already: not again on the rescan
	for fi, f := range files {
		nerrs := len(res.Errs)
		done := sc.read(ctx, f.Path, res, func(buf []byte) bool {
			if res.Found[primary] {
				return look(buf, s.order)
			}
			if look(buf, s.order[:1]) {
				return true // the only term
			}
			if !res.Found[primary] {
				narrowed = true
				return false
			}
			if narrowed {
				rescanUpTo = fi
			}
			return look(buf, s.order)
		})
		failed[fi] = len(res.Errs) > nerrs
		if done || ctx.Err() != nil {
			return
		}
	}
	if !res.Found[primary] || rescanUpTo < 0 {
		return
	}
	for fi, f := range files[:rescanUpTo+1] {
		nerrs := len(res.Errs)
		done := sc.read(ctx, f.Path, res, func(buf []byte) bool { return look(buf, s.order) })
		if failed[fi] {
			res.Errs = res.Errs[:nerrs]
		}
		if done {
			return
		}
	}
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// read feeds the file at path to fn (see feed). A plain file that starts
// like a gzip or zstd archive is read through transcript.Open instead. An
// error ends the file and is recorded in res; what was read before it has
// been searched.
func (sc *Scanner) read(ctx context.Context, path string, res *Result, fn func(buf []byte) bool) bool {
	var stop, archive bool
	var err error
	if transcript.CompressionOf(path) == transcript.Plain {
		f, oerr := openPlain(path)
		if oerr != nil {
			res.Errs = append(res.Errs, oerr)
			return false
		}
		stop, archive, err = sc.feedFile(ctx, f, res, fn)
		f.Close()
	} else {
		archive = true
	}
	if archive {
		r, closer, oerr := sc.openArchive(path)
		if oerr != nil {
			res.Errs = append(res.Errs, oerr)
			return false
		}
		stop, _, err = sc.feed(ctx, r, res, fn, false)
		closer.Close()
	}
	if err != nil && ctx.Err() == nil {
		res.Errs = append(res.Errs, fmt.Errorf("reading %s: %w", path, err))
	}
	return stop
}

// Mapping a plain file instead of reading it saves the copy from the page
// cache into a buffer, but the pages are then read through the process's
// own page tables: a fault per 16 pages, a TLB miss per page, a TLB
// shootdown per window, and the scan reads memory instead of a buffer
// that stays in the CPU cache. Measured on a 2-core AMD EPYC VM (issue 24,
// 213 MB generated corpus, page cache warm), cc-grep --raw took 0.16-0.20
// CPU seconds mapped and 0.05-0.06 read, where rg -l -i -F takes 0.07:
// the faults cost far more in a VM than the copy. So nothing is mapped by
// default. These are variables so that tests can shrink them and run the
// mapped path, which stays for a machine where mapping pays.
var (
	// mapMin is the smallest file that is mapped (never, by default).
	mapMin int64 = math.MaxInt64
	// mapSize is how much of a file is mapped at once: the memory a
	// worker holds stays bounded however big the file.
	mapSize int64 = 4 << 20
)

// feedFile feeds a plain file to fn as feed does: a big one in mapped
// windows that overlap as feed's buffers do, any other, or one that
// cannot be mapped, through read.
func (sc *Scanner) feedFile(ctx context.Context, f *plainFile, res *Result, fn func(buf []byte) bool) (stop, archive bool, err error) {
	if f.size >= mapMin {
		if stop, archive, mapped, err := sc.feedMapped(ctx, f, res, fn); mapped {
			return stop, archive, err
		}
	}
	return sc.feed(ctx, f, res, fn, true)
}

// feedMapped searches the first f.size bytes of f in mapped windows of
// mapSize new bytes, each starting with the overlap bytes before it (a
// file growing meanwhile is searched as it was when opened). wasMapped is
// false when the first window cannot be mapped: nothing was searched,
// read instead. A later failure goes on reading from there.
func (sc *Scanner) feedMapped(ctx context.Context, f *plainFile, res *Result, fn func(buf []byte) bool) (stop, archive, wasMapped bool, err error) {
	// The pages are mapped by the faults of the first reads (the kernel
	// maps 16 at a time), not populated up front: a search that ends
	// early sets up no more than it read, and no system call runs long (a
	// long one makes the Go runtime hand the worker's P over, and wake
	// threads, about a thousand times per search of 500 MB; populating
	// cost 5-10% of the wall time that way).
	w := mapped.New(f.handle(), f.size, mapped.Options{Window: mapSize, Overlap: sc.s.overlap})
	defer w.Close()
	bs := sc.s.opts.BufSize
	for first := true; ; first = false {
		if err := ctx.Err(); err != nil {
			return false, false, true, err
		}
		pos := w.Pos()
		b, head, merr := w.Next()
		if merr == io.EOF {
			return false, false, true, nil
		}
		if merr != nil {
			if first {
				return false, false, false, nil
			}
			// Read the rest, the overlap again (not counted twice).
			start := max(0, pos-int64(sc.s.overlap))
			stop, _, err = sc.feed(ctx, io.NewSectionReader(f, start, f.size-start), res, fn, false)
			res.Bytes -= pos - start
			sc.s.Bytes.Add(start - pos)
			return stop, false, true, err
		}
		if first && (bytes.HasPrefix(b, gzipMagic) || bytes.HasPrefix(b, zstdMagic)) {
			return false, true, true, nil
		}
		// fn sees the window in buffer-sized pieces, as from feed: it
		// stops as early, and each piece stays in the CPU cache while
		// every term is looked for in it.
		err = w.Guard(func() error {
			for q := head; q < len(b); q += bs {
				qe := min(len(b), q+bs)
				res.Bytes += int64(qe - q)
				sc.s.Bytes.Add(int64(qe - q))
				if fn(b[max(0, q-sc.s.overlap):qe]) {
					stop = true
					return nil
				}
			}
			return nil
		})
		if stop || err != nil {
			return stop, false, true, err
		}
	}
}

// feed reads r into the scanner's buffer and calls fn on each buffer until
// fn returns true (stop). Each buffer starts with the last overlap bytes of
// the one before, so that a term cut by a read boundary is seen whole.
// With sniff, a stream starting with a gzip or zstd magic number is not
// searched: feed reports archive instead.
func (sc *Scanner) feed(ctx context.Context, r io.Reader, res *Result, fn func(buf []byte) bool, sniff bool) (stop, archive bool, err error) {
	if sc.buf == nil {
		sc.buf = make([]byte, sc.s.overlap+sc.s.opts.BufSize)
	}
	keep := 0
	for first := true; ; first = false {
		if err := ctx.Err(); err != nil {
			return false, false, err
		}
		n, err := readFull(r, sc.buf[keep:])
		if first && sniff && (bytes.HasPrefix(sc.buf[:n], gzipMagic) || bytes.HasPrefix(sc.buf[:n], zstdMagic)) {
			return false, true, nil
		}
		res.Bytes += int64(n)
		sc.s.Bytes.Add(int64(n))
		end := keep + n
		if n > 0 && fn(sc.buf[:end]) {
			return true, false, nil
		}
		if err == io.EOF {
			return false, false, nil
		}
		if err != nil {
			return false, false, err
		}
		keep = min(sc.s.overlap, end)
		copy(sc.buf, sc.buf[end-keep:end])
	}
}

// readFull fills buf from r as io.ReadFull does, except that only r's own
// io.EOF is the end: io.ReadFull turns a short read before EOF into
// io.ErrUnexpectedEOF, which a truncated gzip or zstd stream also returns,
// and a cut archive would then pass for a whole one.
func readFull(r io.Reader, buf []byte) (int, error) {
	n := 0
	for tries := 0; n < len(buf); {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
		if m > 0 {
			tries = 0
		} else if tries++; tries == 100 {
			return n, io.ErrNoProgress
		}
	}
	return n, nil
}

func (sc *Scanner) openArchive(path string) (io.Reader, io.Closer, error) {
	rc, err := transcript.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return rc, rc, nil
}
