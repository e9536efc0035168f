package sessions

import (
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/regular"
)

// The listing's cache keeps each plain transcript's summary (cwd, first
// prompt, times, titles) for the exact file it was read from: an unchanged
// transcript costs a stat and the read of the bytes before its end that
// the cache checks (cache.TailHash), not its head and tail windows. A
// summary depends on the whole file through its windows, so a grown file
// is read again (a bounded read), and the summary is cached only when the
// file did not change while it was read.

// SummaryCacheName and SummaryCacheVersion name the listing's store.
const (
	SummaryCacheName    = "sessions"
	SummaryCacheVersion = "summary-1"
)

// cachedSummary is readSummary through c.
func cachedSummary(c *cache.Store, path string, size int64, head, tail int64) (summary, error) {
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
		if e, state := c.Lookup(path, stamp, f); state == cache.Fresh {
			var s summary
			if s.decode(e.Data) {
				s.bytesRead = min(size, 256) // what the lookup read
				return s, nil
			}
		}
	}
	s, err := readSummary(path, size, false, head, tail)
	if err != nil || stamp.Size != size {
		return s, err
	}
	// Cached only if the file is still the one read.
	if fi, err := f.Stat(); err == nil && cache.StampOf(fi) == stamp {
		if h, err := cache.TailHash(f, size); err == nil {
			c.Put(path, &cache.Entry{Stamp: stamp, Offset: size, Tail: h, Data: s.encode()})
		}
	}
	return s, nil
}

func (s *summary) encode() []byte {
	var b []byte
	for _, v := range []string{s.cwd, s.firstPrompt, s.customTitle, s.headCustom, s.aiTitle} {
		b = cache.AppendStr(b, v)
	}
	for _, t := range []time.Time{s.started, s.last} {
		tb, _ := t.MarshalBinary()
		b = cache.AppendStr(b, string(tb))
	}
	return b
}

func (s *summary) decode(b []byte) bool {
	d := cache.NewDecoder(b)
	for _, v := range []*string{&s.cwd, &s.firstPrompt, &s.customTitle, &s.headCustom, &s.aiTitle} {
		*v = d.Str()
	}
	for _, t := range []*time.Time{&s.started, &s.last} {
		if err := t.UnmarshalBinary([]byte(d.Str())); err != nil {
			return false
		}
	}
	return d.Done()
}
