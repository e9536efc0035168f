package extract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// The usage cache keeps, per plain transcript, the usageScan of its
// complete lines: per-message facts (not sums), so that every --sum, --cost
// and the billing rule's dedup across files work on them as on a fresh
// read. A grown transcript is read on from the cached offset; a line still
// being written is read but not cached.

// UsageCacheName is the store name of the usage facts, with or without
// the fields --cost reads (one store each: they are different facts).
func UsageCacheName(cost bool) string {
	if cost {
		return "usage-cost"
	}
	return "usage"
}

// UsageCacheVersion names the cached facts' format: a change to what the
// fast path reads, or to the billing rule it applies, changes it.
const UsageCacheVersion = "usage-facts-1"

// scanUsageCached is scanUsageFile through the cache.
func scanUsageCached(c *cache.Store, f file, buf []byte) ([]usageRec, []byte, scanStats, error) {
	if recs, st, ok := usageUnchanged(c, f); ok {
		return recs, buf, st, nil
	}
	fi, _ := os.Stat(f.path) // nil when it fails: the open says why
	rc, err := openTranscript(f.path)
	if err != nil {
		return nil, buf, scanStats{}, err
	}
	fh, ok := rc.(*os.File)
	if !ok {
		// Compressed (an archive): read whole, and cached whole for that
		// exact file, which only Unchanged then takes.
		rc.Close()
		recs, buf, st, err := scanUsageFile(f, buf)
		if err == nil && fi != nil {
			if after, serr := os.Stat(f.path); serr == nil && cache.StampOf(after) == cache.StampOf(fi) {
				s := usageScan{recs: recs, st: st}
				c.Put(f.path, &cache.Entry{Stamp: cache.StampOf(fi), Offset: fi.Size(), Data: s.encode()})
			}
		}
		return recs, buf, st, err
	}
	defer fh.Close()
	fi, err = fh.Stat()
	if err != nil {
		return nil, buf, scanStats{}, err
	}
	stamp := cache.StampOf(fi)
	var s usageScan
	e, state := c.Lookup(f.path, stamp, fh)
	// An archive's entry (no lines counted: it was read whole, compressed)
	// is never read on from.
	if state != cache.Miss && (!s.decode(e.Data) || (e.Offset > 0 && s.lines == 0)) {
		s, state = usageScan{}, cache.Miss
	}
	from := int64(0)
	if state != cache.Miss {
		from = e.Offset
	}
	end, err := completeEnd(fh, from, stamp.Size)
	if err != nil {
		return nil, buf, scanStats{}, fmt.Errorf("reading %s: %w", f.path, err)
	}
	if end > from {
		if buf, err = s.read(io.NewSectionReader(fh, from, end-from), f, buf); err != nil {
			return s.recs, buf, s.st, fmt.Errorf("reading %s: %w", f.path, err)
		}
	}
	if state != cache.Fresh || end != from {
		if tail, err := cache.TailHash(fh, end); err == nil {
			c.Put(f.path, &cache.Entry{Stamp: stamp, Offset: end, Tail: tail, Data: s.encode()})
		}
	}
	if end < stamp.Size {
		// The last line, not ended yet: read on a copy, not cached.
		t := s.clone()
		if buf, err = t.read(io.NewSectionReader(fh, end, stamp.Size-end), f, buf); err != nil {
			return t.recs, buf, t.st, fmt.Errorf("reading %s: %w", f.path, err)
		}
		s = t
	}
	// A file cut below what was read: what was read is not the file. (An
	// unchanged file was not read: the lookup's check is enough.)
	if end == from && end == stamp.Size {
		return s.finish(), buf, s.st, nil
	}
	if fi, err := fh.Stat(); err == nil && fi.Size() < stamp.Size {
		err = fmt.Errorf("%w (%d bytes read, %d left)", errShrank, stamp.Size, fi.Size())
		return s.recs, buf, s.st, fmt.Errorf("reading %s: %w", f.path, err)
	}
	return s.finish(), buf, s.st, nil
}

// usageUnchanged takes an unchanged file's facts from the cache without
// opening it (same device, inode, size and mtime to the nanosecond): a
// warm run costs a stat per transcript. ok is false when the file must be
// read.
func usageUnchanged(c *cache.Store, f file) (recs []usageRec, st scanStats, ok bool) {
	stamp := f.stamp
	if !f.stamped {
		// (Else stat already, by the kept subagent list.)
		fi, err := os.Stat(f.path)
		if err != nil || !fi.Mode().IsRegular() {
			return nil, st, false
		}
		stamp = cache.StampOf(fi)
	}
	e, ok := c.Unchanged(f.path, stamp)
	if !ok {
		return nil, st, false
	}
	var s usageScan
	if !s.decode(e.Data) {
		return nil, st, false
	}
	return s.finish(), s.st, true
}

// completeEnd is the end of the last complete line of the file's first
// size bytes, at least from (where a complete line ended already).
func completeEnd(r io.ReaderAt, from, size int64) (int64, error) {
	var chunk [4096]byte
	for hi := size; hi > from; {
		lo := max(hi-int64(len(chunk)), from)
		b := chunk[:hi-lo]
		if _, err := r.ReadAt(b, lo); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return lo + int64(i) + 1, nil
		}
		hi = lo
	}
	return from, nil
}

// clone is a copy that reads on without changing s.
func (s *usageScan) clone() usageScan {
	t := *s
	t.recs = s.recs[:len(s.recs):len(s.recs)]
	t.st.malformed = append([]int(nil), s.st.malformed...)
	t.st.tooLong = append([]int(nil), s.st.tooLong...)
	t.st.mismatched = append([]mismatch(nil), s.st.mismatched...)
	return t
}

// encode writes the scan for the cache. The strings that repeat on every
// record (session, agent, cwd, models) are written once, in a table.
func (s *usageScan) encode() []byte {
	var tab []string
	idx := map[string]uint64{}
	ref := func(b []byte, v string) []byte {
		i, ok := idx[v]
		if !ok {
			i = uint64(len(tab))
			idx[v] = i
			tab = append(tab, v)
		}
		return cache.AppendUvarint(b, i)
	}
	rec := func(b []byte, r *usageRec) []byte {
		for _, v := range []string{r.msgID, r.reqID, r.reqRef, r.uuid, r.ts, r.usageRaw} {
			b = cache.AppendStr(b, v)
		}
		for _, v := range []string{r.model, r.sessionID, r.agentID, r.cwd, r.reqModel} {
			b = ref(b, v)
		}
		b = cache.AppendBool(b, r.copied)
		for _, v := range []int64{r.u.InputTokens, r.u.OutputTokens, r.u.CacheReadInputTokens, r.u.CacheCreationInputTokens} {
			b = cache.AppendVarint(b, v)
		}
		return b
	}
	var body []byte
	body = cache.AppendUvarint(body, uint64(len(s.recs)))
	for i := range s.recs {
		body = rec(body, &s.recs[i])
	}
	body = cache.AppendBool(body, s.hasOpen)
	if s.hasOpen {
		body = rec(body, &s.open)
	}
	st := &s.st
	ints := func(b []byte, v []int) []byte {
		b = cache.AppendUvarint(b, uint64(len(v)))
		for _, n := range v {
			b = cache.AppendVarint(b, int64(n))
		}
		return b
	}
	body = ints(body, st.malformed)
	body = cache.AppendVarint(body, int64(st.nMalformed))
	body = ints(body, st.tooLong)
	body = cache.AppendUvarint(body, uint64(len(st.mismatched)))
	for _, m := range st.mismatched {
		body = cache.AppendVarint(body, int64(m.line))
		body = cache.AppendStr(body, m.fields)
	}
	body = cache.AppendBool(body, st.incomplete)
	body = cache.AppendVarint(body, int64(st.notEntries))
	body = cache.AppendBool(body, st.sawEntry)
	body = cache.AppendStr(body, st.sid)
	body = cache.AppendStr(body, st.cwd)
	body = cache.AppendVarint(body, int64(s.lines))

	b := cache.AppendUvarint(nil, uint64(len(tab)))
	for _, v := range tab {
		b = cache.AppendStr(b, v)
	}
	return append(b, body...)
}

// decode reads what encode wrote; false (and s unusable) on anything else.
// The strings share b's memory (an entry's Data never changes).
func (s *usageScan) decode(b []byte) bool {
	d := cache.NewDecoder(b)
	tab := make([]string, d.Count())
	for i := range tab {
		tab[i] = d.StrShared()
	}
	ref := func() string {
		i := d.Uvarint()
		if i >= uint64(len(tab)) {
			d.Fail()
			return ""
		}
		return tab[i]
	}
	rec := func(r *usageRec) {
		for _, v := range []*string{&r.msgID, &r.reqID, &r.reqRef, &r.uuid, &r.ts, &r.usageRaw} {
			*v = d.StrShared()
		}
		for _, v := range []*string{&r.model, &r.sessionID, &r.agentID, &r.cwd, &r.reqModel} {
			*v = ref()
		}
		r.copied = d.Bool()
		for _, v := range []*int64{&r.u.InputTokens, &r.u.OutputTokens, &r.u.CacheReadInputTokens, &r.u.CacheCreationInputTokens} {
			*v = d.Varint()
		}
	}
	*s = usageScan{}
	if n := d.Count(); n > 0 {
		s.recs = make([]usageRec, n)
		for i := range s.recs {
			rec(&s.recs[i])
		}
	}
	if s.hasOpen = d.Bool(); s.hasOpen {
		rec(&s.open)
	}
	st := &s.st
	ints := func() []int {
		n := d.Count()
		if n == 0 {
			return nil
		}
		v := make([]int, n)
		for i := range v {
			v[i] = int(d.Varint())
		}
		return v
	}
	st.malformed = ints()
	st.nMalformed = int(d.Varint())
	st.tooLong = ints()
	if n := d.Count(); n > 0 {
		st.mismatched = make([]mismatch, n)
		for i := range st.mismatched {
			st.mismatched[i] = mismatch{line: int(d.Varint()), fields: d.Str()}
		}
	}
	st.incomplete = d.Bool()
	st.notEntries = int(d.Varint())
	st.sawEntry = d.Bool()
	st.sid = d.Str()
	st.cwd = d.Str()
	s.lines = int(d.Varint())
	return d.Done()
}

// subagents lists a session's subagent transcripts as transcript.Subagents
// does; for usage with a cache, the list (ids and paths, in order) is kept
// for the subagents dir as it was, with each file's stamp: while the dir and
// every file are unchanged it is taken on stats alone, without opening each
// file for its first timestamp. A list with a file not timed yet (its
// order could still change) is not kept.
// stamps, when not nil, are the files' stats (they were checked).
func (x *Extractor) subagents(path string) (subs []transcript.Subagent, stamps []cache.Stamp, err error) {
	c := x.opts.Cache
	if c == nil || x.opts.Kind != "usage" {
		subs, err = transcript.Subagents(path)
		return subs, nil, err
	}
	dir := filepath.Join(transcript.SessionDir(path), "subagents")
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		// Most sessions have none: no second look (transcript.Subagents
		// would open the dir to find it missing).
		return nil, nil, nil
	}
	if err != nil || !fi.IsDir() {
		subs, err = transcript.Subagents(path)
		return subs, nil, err
	}
	key := dir + string(filepath.Separator) // never a transcript's path
	stamp := cache.StampOf(fi)
	if e, ok := c.Unchanged(key, stamp); ok {
		if subs, stamps, ok := decodeSubagents(e.Data); ok {
			return subs, stamps, nil
		}
	}
	subs, err = transcript.Subagents(path)
	if err != nil {
		return subs, nil, err
	}
	b := cache.AppendUvarint(nil, uint64(len(subs)))
	for _, s := range subs {
		sfi, err := os.Stat(s.Path)
		if err != nil || s.FirstTimestamp == "" {
			return subs, nil, nil
		}
		st := cache.StampOf(sfi)
		b = cache.AppendStr(b, s.AgentID)
		b = cache.AppendStr(b, s.Path)
		for _, v := range []uint64{st.Dev, st.Ino, uint64(st.Size), uint64(st.MtimeNS)} {
			b = cache.AppendUvarint(b, v)
		}
	}
	if after, err := os.Stat(dir); err == nil && cache.StampOf(after) == stamp {
		c.Put(key, &cache.Entry{Stamp: stamp, Offset: stamp.Size, Data: b})
	}
	return subs, nil, nil
}

// decodeSubagents reads a kept list, false when it is not what was
// written or a file changed since.
func decodeSubagents(b []byte) ([]transcript.Subagent, []cache.Stamp, bool) {
	d := cache.NewDecoder(b)
	n := d.Count()
	subs := make([]transcript.Subagent, 0, n)
	stamps := make([]cache.Stamp, 0, n)
	for i := 0; i < n && d.Err() == nil; i++ {
		s := transcript.Subagent{AgentID: d.StrShared(), Path: d.StrShared()}
		st := cache.Stamp{Dev: d.Uvarint(), Ino: d.Uvarint(), Size: int64(d.Uvarint()), MtimeNS: int64(d.Uvarint())}
		if d.Err() != nil {
			return nil, nil, false
		}
		fi, err := os.Stat(s.Path)
		if err != nil || cache.StampOf(fi) != st {
			return nil, nil, false
		}
		subs = append(subs, s)
		stamps = append(stamps, st)
	}
	return subs, stamps, d.Done()
}
