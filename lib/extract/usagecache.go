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
	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/transcript"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// The usage cache keeps, per plain transcript, the usageScan of its
// complete lines: per-message facts (not sums), so that every --sum, --cost
// and the billing rule's dedup across files work on them as on a fresh
// read. A grown transcript is read on from the cached offset; a line still
// being written is read but not cached.

// UsageCacheName is the store name of the usage facts: with or without
// the fields --cost reads, and whole (one record per message) or for
// --sum, which keeps of a message its key hashed and only the fields a
// sum reads (a third of the bytes, which a warm run reads whole). One
// store each: they are different facts.
func UsageCacheName(cost, sums bool) string {
	name := "usage"
	if sums {
		name += "-sums"
	}
	if cost {
		name += "-cost"
	}
	return name
}

// UsageCacheVersion names the cached facts' format: a change to what the
// fast path reads, or to the billing rule it applies, changes it.
const UsageCacheVersion = "usage-facts-6"

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
				c.Put(f.path, &cache.Entry{Stamp: cache.StampOf(fi), Offset: fi.Size(), Data: s.encode(f.sums)})
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
	if state != cache.Miss && (!s.decode(e.Data, f.sums) || (e.Offset > 0 && s.lines == 0)) {
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
			c.Put(f.path, &cache.Entry{Stamp: stamp, Offset: end, Tail: tail, Data: s.encode(f.sums)})
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
	e, ok := unchangedEntry(c, f)
	if !ok {
		return nil, st, false
	}
	var s usageScan
	if !s.decode(e.Data, f.sums) {
		return nil, st, false
	}
	return s.finish(), s.st, true
}

// unchangedEntry is the cache's entry of an unchanged file (the usage
// job decodes it as it takes the file's messages).
func unchangedEntry(c *cache.Store, f file) (*cache.Entry, bool) {
	stamp := f.stamp
	if !f.stamped {
		// (Else stat already, by the kept subagent list.)
		st, mode, err := cache.StatPath(f.path)
		if err != nil || mode != 0 {
			return nil, false
		}
		stamp = st
	}
	return c.Unchanged(f.path, stamp)
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
	t.st.marks = s.st.marks[:len(s.st.marks):len(s.st.marks)]
	return t
}

// The cached scan: a table of the strings that repeat on every record
// (session, agent, cwd, models), then what was skipped, the session
// marks, the open message and last the messages, so that a warm run
// takes the messages straight from the cached bytes as it counts them
// (usageFacts), with no copy of each in between.

// encode writes the scan for the cache; sums: for --sum (UsageCacheName).
func (s *usageScan) encode(sums bool) []byte {
	var tab cache.StrTable
	ref := tab.Ref
	rec := func(b []byte, r *usageRec, sums bool) []byte {
		if sums {
			b = cache.AppendU64(b, r.Key)
			// The ids only where a sum names them in a warning.
			ids := usage.SumNamesIDs(r)
			b = cache.AppendBool(b, ids)
			if ids {
				b = cache.AppendStr(b, r.MessageID)
				b = cache.AppendStr(b, r.UUID)
			}
			b = cache.AppendStr(b, r.Timestamp)
			b = cache.AppendStr(b, r.Usage)
		} else {
			for _, v := range []string{r.MessageID, r.RequestID, r.RequestRef, r.UUID, r.Timestamp, r.Usage} {
				b = cache.AppendStr(b, v)
			}
		}
		for _, v := range []string{r.Model, r.SessionID, r.AgentID, r.Cwd, r.RequestedModel} {
			b = ref(b, v)
		}
		b = cache.AppendBool(b, r.Copied)
		for _, v := range []int64{r.Tokens.InputTokens, r.Tokens.OutputTokens, r.Tokens.CacheReadInputTokens, r.Tokens.CacheCreationInputTokens, r.Tokens.CacheCreation5m, r.Tokens.CacheCreation1h} {
			b = cache.AppendVarint(b, v)
		}
		return b
	}
	st := &s.st
	ints := func(b []byte, v []int) []byte {
		b = cache.AppendUvarint(b, uint64(len(v)))
		for _, n := range v {
			b = cache.AppendVarint(b, int64(n))
		}
		return b
	}
	var body []byte
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
	body = cache.AppendVarint(body, int64(s.lines))
	body = usage.AppendRecorded(body, &st.recorded)
	// Each mark's timestamp is written as the length it shares with the
	// one before and the rest: most share all but the last few digits.
	var marks []byte
	prev := ""
	for _, m := range st.marks {
		marks = ref(marks, m.sid)
		marks = ref(marks, m.cwd)
		n := 0
		for n < len(prev) && n < len(m.ts) && prev[n] == m.ts[n] {
			n++
		}
		marks = cache.AppendUvarint(marks, uint64(n))
		marks = cache.AppendStr(marks, m.ts[n:])
		prev = m.ts
	}
	body = cache.AppendUvarint(body, uint64(len(st.marks)))
	body = cache.AppendStr(body, string(marks))
	body = cache.AppendBool(body, s.hasOpen)
	if s.hasOpen {
		body = rec(body, &s.open, false) // whole: its records go on
	}
	body = cache.AppendUvarint(body, uint64(len(s.recs)))
	for i := range s.recs {
		body = rec(body, &s.recs[i], sums)
	}

	return append(tab.Append(nil), body...)
}

// usageFacts is a cached scan being read: its table, its marks (still
// encoded) and a decoder at its messages. Its strings share the cached
// bytes' memory (an entry's Data never changes).
type usageFacts struct {
	sums   bool
	tab    []string
	nMarks int
	marks  []byte
	d      cache.Decoder
	n      int // messages left
}

// openFacts reads a cached scan up to its messages: s gets everything but
// the messages (and s.recs is nil), which next then gives one by one.
// false (and s unusable) when b is not what encode wrote.
func openFacts(b []byte, sums bool, f *usageFacts, s *usageScan) bool {
	*f = usageFacts{sums: sums}
	d := &f.d
	d.Reset(b)
	f.tab = cache.ReadStrTable(d)
	*s = usageScan{}
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
	s.lines = int(d.Varint())
	st.recorded = usage.DecodeRecorded(d)
	f.nMarks = d.Count()
	f.marks = d.Bytes()
	if s.hasOpen = d.Bool(); s.hasOpen {
		f.rec(&s.open, false)
	}
	f.n = d.Count()
	return d.Err() == nil
}

func (f *usageFacts) ref(d *cache.Decoder) string { return d.Ref(f.tab) }

// rec reads a message into r (kept for --sum, or whole) and returns its
// key.
func (f *usageFacts) rec(r *usageRec, sums bool) (key uint64) {
	d := &f.d
	if sums {
		key = d.U64()
		r.MessageID, r.RequestID, r.RequestRef, r.UUID = "", "", "", ""
		if d.Bool() {
			r.MessageID, r.UUID = d.StrShared(), d.StrShared()
		}
		r.Timestamp, r.Usage = d.StrShared(), d.StrShared()
	} else {
		for _, v := range []*string{&r.MessageID, &r.RequestID, &r.RequestRef, &r.UUID, &r.Timestamp, &r.Usage} {
			*v = d.StrShared()
		}
	}
	for _, v := range []*string{&r.Model, &r.SessionID, &r.AgentID, &r.Cwd, &r.RequestedModel} {
		*v = f.ref(d)
	}
	r.Copied = d.Bool()
	for _, v := range []*int64{&r.Tokens.InputTokens, &r.Tokens.OutputTokens, &r.Tokens.CacheReadInputTokens, &r.Tokens.CacheCreationInputTokens, &r.Tokens.CacheCreation5m, &r.Tokens.CacheCreation1h} {
		*v = d.Varint()
	}
	if !sums {
		b := r.Bill()
		key = usage.KeyOf(&b)
	}
	r.Key = key
	return key
}

// next reads the next message into r and returns its key; false at the
// end, or when the bytes are not what encode wrote (done then says so).
func (f *usageFacts) next(r *usageRec) (uint64, bool) {
	if f.n == 0 || f.d.Err() != nil {
		return 0, false
	}
	f.n--
	key := f.rec(r, f.sums)
	return key, f.d.Err() == nil
}

// done says every message was read and nothing follows.
func (f *usageFacts) done() bool { return f.n == 0 && f.d.Done() }

// listed is scanStats.listed on the encoded marks.
func (f *usageFacts) listed(inWindow func(ts string) bool) (sid, cwd string, ok bool) {
	d := cache.NewDecoder(f.marks)
	var ts []byte
	for range f.nMarks {
		sid, cwd = f.ref(d), f.ref(d)
		n := d.Uvarint()
		if n > uint64(len(ts)) {
			d.Fail()
		}
		if d.Err() != nil {
			return "", "", false
		}
		ts = append(ts[:n], d.Bytes()...)
		if inWindow(string(ts)) {
			return sid, cwd, d.Err() == nil
		}
	}
	return "", "", d.Err() == nil
}

// marks decodes the encoded marks.
func (f *usageFacts) allMarks() ([]sessionMark, bool) {
	d := cache.NewDecoder(f.marks)
	var marks []sessionMark
	prev := ""
	for range f.nMarks {
		m := sessionMark{sid: f.ref(d), cwd: f.ref(d)}
		n := d.Uvarint()
		if n > uint64(len(prev)) {
			d.Fail()
		}
		if d.Err() != nil {
			return nil, false
		}
		m.ts = prev[:n] + d.Str()
		marks = append(marks, m)
		prev = m.ts
	}
	return marks, d.Done()
}

// decode reads what encode wrote, whole; false (and s unusable) on
// anything else.
func (s *usageScan) decode(b []byte, sums bool) bool {
	var f usageFacts
	if !openFacts(b, sums, &f, s) {
		return false
	}
	var ok bool
	if s.st.marks, ok = f.allMarks(); !ok {
		return false
	}
	if f.n > 0 {
		// Room for the open message, which finish appends.
		s.recs = make([]usageRec, f.n, f.n+1)
		for i := range s.recs {
			if _, ok := f.next(&s.recs[i]); !ok {
				return false
			}
		}
	}
	return f.done()
}

// subagents lists a session's subagent transcripts as transcript.Subagents
// does; for usage with a cache, the list (ids and paths, in order) is kept
// for the subagents dir as it was, with each file's stamp: while the dir and
// every file are unchanged it is taken on stats alone, without opening each
// file for its first timestamp. A list with a file not timed yet (its
// order could still change) is not kept.
// stamps, when not nil, are the files' stats (they were checked).
func (x *Extractor) subagents(path string, pre *statResult) (subs []transcript.Subagent, stamps []cache.Stamp, err error) {
	c := x.opts.Cache
	if c == nil {
		subs, err = transcript.Subagents(path)
		return subs, nil, err
	}
	dir := layout.SubagentsDirOf(path)
	if pre == nil {
		st := statOf(dir)
		pre = &st
	}
	stamp, mode, err := pre.stamp, pre.mode, pre.err
	if errors.Is(err, fs.ErrNotExist) {
		// Most sessions have none: no second look (transcript.Subagents
		// would open the dir to find it missing).
		return nil, nil, nil
	}
	if err != nil || mode != fs.ModeDir {
		subs, err = transcript.Subagents(path)
		return subs, nil, err
	}
	key := dir + string(filepath.Separator) // never a transcript's path
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
		b = cache.AppendStamp(b, st)
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
		st := d.Stamp()
		if d.Err() != nil {
			return nil, nil, false
		}
		if now, _, err := cache.StatPath(s.Path); err != nil || now != st {
			return nil, nil, false
		}
		subs = append(subs, s)
		stamps = append(stamps, st)
	}
	return subs, stamps, d.Done()
}
