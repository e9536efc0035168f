package usage

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ccpipe/ccpipe/lib/cache"
)

// The scan's cache keeps, per plain transcript, the fileScan of its
// complete lines: per-message facts (not sums), so that every --sum, --cost
// and the billing rule's dedup across files work on them as on a fresh
// read. A grown transcript is read on from the cached offset; a line still
// being written is read but not cached.

// FactsCacheName is the store name of the scanned messages: with or without
// the fields --cost reads, and whole (one record per message) or for
// --sum, which keeps of a message its key hashed and only the fields a
// sum reads (a third of the bytes, which a warm run reads whole). One
// store each: they are different facts.
func FactsCacheName(cost, sums bool) string {
	name := "usage"
	if sums {
		name += "-sums"
	}
	if cost {
		name += "-cost"
	}
	return name
}

// FactsCacheVersion names the cached facts' format: a change to what the
// scan reads, or to the billing rule it applies, changes it.
const FactsCacheVersion = "usage-facts-6"

// scanCached is scanFile through the cache.
func scanCached(c *cache.Store, open Opener, f File, buf []byte) ([]Message, []byte, ScanStats, error) {
	if recs, st, ok := unchangedScan(c, f); ok {
		return recs, buf, st, nil
	}
	fi, _ := os.Stat(f.Path) // nil when it fails: the open says why
	rc, err := open(f.Path)
	if err != nil {
		return nil, buf, ScanStats{}, err
	}
	fh, ok := rc.(*os.File)
	if !ok {
		// Compressed (an archive): read whole, and cached whole for that
		// exact file, which only Unchanged then takes.
		rc.Close()
		recs, buf, st, err := scanFile(open, f, buf)
		if err == nil && fi != nil {
			if after, serr := os.Stat(f.Path); serr == nil && cache.StampOf(after).Same(cache.StampOf(fi)) {
				s := fileScan{recs: recs, st: st}
				c.Put(f.Path, &cache.Entry{Stamp: cache.StampOf(fi), Offset: fi.Size(), Data: s.encode(f.Sums)})
			}
		}
		return recs, buf, st, err
	}
	defer fh.Close()
	fi, err = fh.Stat()
	if err != nil {
		return nil, buf, ScanStats{}, err
	}
	stamp := cache.StampOf(fi)
	var s fileScan
	e, state := c.Lookup(f.Path, stamp, fh)
	// An archive's entry (no lines counted: it was read whole, compressed)
	// is never read on from.
	if state != cache.Miss && (!s.decode(e.Data, f.Sums) || (e.Offset > 0 && s.lines == 0)) {
		s, state = fileScan{}, cache.Miss
	}
	from := int64(0)
	if state != cache.Miss {
		from = e.Offset
	}
	end, err := completeEnd(fh, from, stamp.Size)
	if err != nil {
		return nil, buf, ScanStats{}, fmt.Errorf("reading %s: %w", f.Path, err)
	}
	if end > from {
		if buf, err = s.read(io.NewSectionReader(fh, from, end-from), f, buf); err != nil {
			return s.recs, buf, s.st, fmt.Errorf("reading %s: %w", f.Path, err)
		}
	}
	if state != cache.Fresh || end != from {
		if tail, err := cache.TailHash(fh, end); err == nil {
			c.Put(f.Path, &cache.Entry{Stamp: stamp, Offset: end, Tail: tail, Data: s.encode(f.Sums)})
		}
	}
	if end < stamp.Size {
		// The last line, not ended yet: read on a copy, not cached.
		t := s.clone()
		if buf, err = t.read(io.NewSectionReader(fh, end, stamp.Size-end), f, buf); err != nil {
			return t.recs, buf, t.st, fmt.Errorf("reading %s: %w", f.Path, err)
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
		return s.recs, buf, s.st, fmt.Errorf("reading %s: %w", f.Path, err)
	}
	return s.finish(), buf, s.st, nil
}

// unchangedScan takes an unchanged file's facts from the cache without
// opening it (same device, inode, size and mtime to the nanosecond): a
// warm run costs a stat per transcript. ok is false when the file must be
// read.
func unchangedScan(c *cache.Store, f File) (recs []Message, st ScanStats, ok bool) {
	e, ok := Unchanged(c, f)
	if !ok {
		return nil, st, false
	}
	var s fileScan
	if !s.decode(e.Data, f.Sums) {
		return nil, st, false
	}
	return s.finish(), s.st, true
}

// Unchanged is the cache's entry of an unchanged file, which Facts reads
// as its messages are counted (cc-extract usage takes them so, on the
// goroutine that counts them, without handing the file to a worker).
func Unchanged(c *cache.Store, f File) (*cache.Entry, bool) {
	stamp := f.Stamp
	if !f.Stamped {
		// (Else stat already, by the kept subagent list.)
		st, mode, err := cache.StatPath(f.Path)
		if err != nil || mode != 0 {
			return nil, false
		}
		stamp = st
	}
	return c.Unchanged(f.Path, stamp)
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
func (s *fileScan) clone() fileScan {
	t := *s
	t.recs = s.recs[:len(s.recs):len(s.recs)]
	t.st.Malformed = append([]int(nil), s.st.Malformed...)
	t.st.TooLong = append([]int(nil), s.st.TooLong...)
	t.st.Mismatched = append([]Mismatch(nil), s.st.Mismatched...)
	t.st.marks = s.st.marks[:len(s.st.marks):len(s.st.marks)]
	return t
}

// The cached scan: a table of the strings that repeat on every record
// (session, agent, cwd, models), then what was skipped, the session
// marks, the open message and last the messages, so that a warm run
// takes the messages straight from the cached bytes as it counts them
// (Facts), with no copy of each in between.

// encode writes the scan for the cache; sums: for --sum (FactsCacheName).
func (s *fileScan) encode(sums bool) []byte {
	var tab cache.StrTable
	ref := tab.Ref
	rec := func(b []byte, r *Message, sums bool) []byte {
		if sums {
			b = cache.AppendU64(b, r.Key)
			// The ids only where a sum names them in a warning.
			ids := SumNamesIDs(r)
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
	body = ints(body, st.Malformed)
	body = cache.AppendVarint(body, int64(st.NMalformed))
	body = ints(body, st.TooLong)
	body = cache.AppendUvarint(body, uint64(len(st.Mismatched)))
	for _, m := range st.Mismatched {
		body = cache.AppendVarint(body, int64(m.Line))
		body = cache.AppendStr(body, m.Fields)
	}
	body = cache.AppendBool(body, st.Incomplete)
	body = cache.AppendVarint(body, int64(st.NotEntries))
	body = cache.AppendBool(body, st.SawEntry)
	body = cache.AppendVarint(body, int64(s.lines))
	body = AppendRecorded(body, &st.Recorded)
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

// Facts is a cached scan being read: its table, its marks (still
// encoded) and a decoder at its messages. Its strings share the cached
// bytes' memory (an entry's Data never changes).
type Facts struct {
	sums   bool
	tab    []string
	nMarks int
	marks  []byte
	d      cache.Decoder
	n      int // messages left
	// open is the message still open at the end of what was read (Each
	// gives it last).
	open    Message
	hasOpen bool
}

// Read reads the cached scan of an entry (Unchanged; sums as the file's
// File.Sums) up to its messages, which Each then gives: what the scan
// skipped; ok is false when data is not what the cache's encode wrote.
func (f *Facts) Read(data []byte, sums bool) (st ScanStats, ok bool) {
	var s fileScan
	ok = openFacts(data, sums, f, &s)
	f.open, f.hasOpen = s.open, s.hasOpen
	return s.st, ok
}

// ErrDamaged is Each's error for cached bytes that are not what the
// cache's encode wrote.
var ErrDamaged = errors.New("not what was written")

// Each gives fn the messages Read left, in file order, each with its key,
// the one still open at the end last; an error of fn stops it. It returns
// ErrDamaged when the bytes are not what encode wrote (fn may have been
// given some of the messages).
func (f *Facts) Each(fn func(r *Message, key uint64) error) error {
	var r Message
	for {
		key, ok := f.next(&r)
		if !ok {
			break
		}
		if err := fn(&r, key); err != nil {
			return err
		}
	}
	if !f.done() {
		return ErrDamaged
	}
	if f.hasOpen {
		return fn(&f.open, f.open.Key)
	}
	return nil
}

// openFacts reads a cached scan up to its messages: s gets everything but
// the messages (and s.recs is nil), which next then gives one by one.
// false (and s unusable) when b is not what encode wrote.
func openFacts(b []byte, sums bool, f *Facts, s *fileScan) bool {
	*f = Facts{sums: sums}
	d := &f.d
	d.Reset(b)
	f.tab = cache.ReadStrTable(d)
	*s = fileScan{}
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
	st.Malformed = ints()
	st.NMalformed = int(d.Varint())
	st.TooLong = ints()
	if n := d.Count(); n > 0 {
		st.Mismatched = make([]Mismatch, n)
		for i := range st.Mismatched {
			st.Mismatched[i] = Mismatch{Line: int(d.Varint()), Fields: d.Str()}
		}
	}
	st.Incomplete = d.Bool()
	st.NotEntries = int(d.Varint())
	st.SawEntry = d.Bool()
	s.lines = int(d.Varint())
	st.Recorded = DecodeRecorded(d)
	f.nMarks = d.Count()
	f.marks = d.Bytes()
	if s.hasOpen = d.Bool(); s.hasOpen {
		f.rec(&s.open, false)
	}
	f.n = d.Count()
	return d.Err() == nil
}

func (f *Facts) ref(d *cache.Decoder) string { return d.Ref(f.tab) }

// rec reads a message into r (kept for --sum, or whole) and returns its
// key.
func (f *Facts) rec(r *Message, sums bool) (key uint64) {
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
		key = KeyOf(&b)
	}
	r.Key = key
	return key
}

// next reads the next message into r and returns its key; false at the
// end, or when the bytes are not what encode wrote (done then says so).
func (f *Facts) next(r *Message) (uint64, bool) {
	if f.n == 0 || f.d.Err() != nil {
		return 0, false
	}
	f.n--
	key := f.rec(r, f.sums)
	return key, f.d.Err() == nil
}

// done says every message was read and nothing follows.
func (f *Facts) done() bool { return f.n == 0 && f.d.Done() }

// Listed is ScanStats.Listed on the encoded marks; ok is false when they
// are not what encode wrote.
func (f *Facts) Listed(inWindow func(ts string) bool) (sid, cwd string, ok bool) {
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

// allMarks decodes the encoded marks.
func (f *Facts) allMarks() ([]sessionMark, bool) {
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
func (s *fileScan) decode(b []byte, sums bool) bool {
	var f Facts
	if !openFacts(b, sums, &f, s) {
		return false
	}
	var ok bool
	if s.st.marks, ok = f.allMarks(); !ok {
		return false
	}
	if f.n > 0 {
		// Room for the open message, which finish appends.
		s.recs = make([]Message, f.n, f.n+1)
		for i := range s.recs {
			if _, ok := f.next(&s.recs[i]); !ok {
				return false
			}
		}
	}
	return f.done()
}
