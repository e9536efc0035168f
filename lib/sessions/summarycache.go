package sessions

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/regular"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// RefusedError is a listing's note that a compressed transcript refused
// before (it decompresses past its bound) was skipped unread: the cache
// remembers the refusal for this exact file. It wraps transcript.ErrBomb.
type RefusedError struct{ Path string }

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s: skipped: refused before, %v (judged again when the file changes, or with --no-cache)", e.Path, transcript.ErrBomb)
}

func (e *RefusedError) Unwrap() error { return transcript.ErrBomb }

// The listing's cache keeps each plain transcript's summary (cwd, first
// prompt, times, titles) for the exact file it was read from: an unchanged
// transcript costs a stat and the read of the bytes before its end that
// the cache checks (cache.TailHash), not its head and tail windows. A
// summary depends on the whole file through its windows, so a grown file
// is read again (a bounded read), and the summary is cached only when the
// file did not change while it was read.
//
// A compressed transcript is not cached (its summary needs a read to its
// end) except when it was refused as a compression bomb
// (transcript.ErrBomb): the refusal is kept for the exact file (the
// identity of cache.Judge), so the next listing warns it in a short form
// without decompressing it again, and a file replaced or rewritten since
// is judged again.

// SummaryCacheName and SummaryCacheVersion name the listing's store.
const (
	SummaryCacheName    = "sessions"
	SummaryCacheVersion = "summary-2"
)

// cachedSummary is readSummary through c. listed, when not nil, is the
// stamp of the listing's stat of the file (Session.Listed): a file
// unchanged since its summary was cached is then not opened at all (the
// one rule of cache.Store.Unchanged, as an index's unchanged file).
func cachedSummary(c *cache.Store, path string, listed *cache.Stamp, size int64, compressed bool, head, tail int64) (summary, error) {
	if listed != nil && listed.Size == size && !compressed {
		var s summary
		if e, ok := c.Unchanged(path, *listed); ok {
			if refused, ok := s.decode(e.Data); ok && !refused {
				return s, nil
			}
		}
	}
	f, err := regular.Open(path)
	if err != nil {
		return summary{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return summary{}, err
	}
	stamp := cache.StampOf(fi)
	if stamp.Size == size {
		if s, refused, ok := lookupSummary(c, path, stamp, f); ok && refused == compressed {
			s.bytesRead = min(size, 256) // what the lookup read
			if refused {
				return s, &RefusedError{Path: path}
			}
			return s, nil
		}
	}
	s, err := readSummary(path, size, compressed, head, tail)
	refused := compressed && errors.Is(err, transcript.ErrBomb)
	if (err != nil && !refused) || (compressed && !refused) || stamp.Size != size {
		return s, err
	}
	putSummary(c, path, stamp, f, s, refused)
	return s, err
}

// lookupSummary is the cached summary of the file f at path, whose
// stamp is st, and whether it was refused; ok is false without a fresh
// entry.
func lookupSummary(c *cache.Store, path string, st cache.Stamp, f *os.File) (s summary, refused, ok bool) {
	e, state := c.Lookup(path, st, f)
	if state != cache.Fresh {
		return s, false, false
	}
	refused, ok = s.decode(e.Data)
	return s, refused, ok
}

// putSummary caches s for the file f at path read at stamp st, only if
// the file is still the one read.
func putSummary(c *cache.Store, path string, st cache.Stamp, f *os.File, s summary, refused bool) {
	if fi, err := f.Stat(); err == nil && cache.StampOf(fi).Same(st) {
		if h, err := cache.TailHash(f, st.Size); err == nil {
			c.Put(path, &cache.Entry{Stamp: st, Offset: st.Size, Tail: h, Data: s.encode(refused)})
		}
	}
}

// archivedLength measures an archive copy for copyLength (a variable so
// that a test counts the decompressions).
var archivedLength = transcript.ArchivedLengthErr

// copyLength is the content length of the archive copy at path for
// ReadOnce (transcript.ArchivedLength). A copy refused as a compression
// bomb is -1 with its error; with c, the refusal is remembered for that
// exact file, and the next call answers -1 with a RefusedError without
// decompressing it.
func copyLength(c *cache.Store, path string) (int64, error) {
	if c == nil {
		n, err := archivedLength(path)
		if !errors.Is(err, transcript.ErrBomb) {
			err = nil
		}
		return n, err
	}
	f, err := regular.Open(path)
	if err != nil {
		return -1, nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return -1, nil
	}
	stamp := cache.StampOf(fi)
	if _, refused, ok := lookupSummary(c, path, stamp, f); ok && refused {
		return -1, &RefusedError{Path: path}
	}
	n, err := archivedLength(path)
	if !errors.Is(err, transcript.ErrBomb) {
		return n, nil
	}
	putSummary(c, path, stamp, f, summary{}, true)
	return -1, err
}

// encode is the summary as cached, with refused: the file was refused
// as a compression bomb (what was read before the bound is kept too).
func (s *summary) encode(refused bool) []byte {
	b := cache.AppendBool(nil, refused)
	for _, v := range []string{s.cwd, s.firstPrompt, s.customTitle, s.headCustom, s.aiTitle} {
		b = cache.AppendStr(b, v)
	}
	for _, t := range []time.Time{s.started, s.last} {
		tb, _ := t.MarshalBinary()
		b = cache.AppendStr(b, string(tb))
	}
	return b
}

// decode reads what encode wrote. The strings share b, an Entry's Data
// of a store read into memory (cache.Open, never mapped), which never
// changes: their copies were 200 KB of a warm cc-grep of a common term.
func (s *summary) decode(b []byte) (refused, ok bool) {
	d := cache.NewDecoder(b)
	refused = d.Bool()
	for _, v := range []*string{&s.cwd, &s.firstPrompt, &s.customTitle, &s.headCustom, &s.aiTitle} {
		*v = d.StrShared()
	}
	for _, t := range []*time.Time{&s.started, &s.last} {
		if err := t.UnmarshalBinary(d.Bytes()); err != nil {
			return false, false
		}
	}
	return refused, d.Done()
}
