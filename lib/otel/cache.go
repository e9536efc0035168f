package otel

import (
	"errors"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/layout"
)

// The event cache: each session's record (its events, before they are
// numbered and checked against the rest of the run) is kept in a
// lib/cache store under its main transcript's path, with the stamps of
// its subagents dir and subagent transcripts. A session whose files are
// all unchanged (lib/cache's stamp: device, inode, size, mtime, ctime) is
// sent from the record without opening one; any other is read again,
// whole, and its record replaced. The stamps are taken before the files
// are read and checked again after: a file that changed meanwhile leaves
// the record uncached. A record is the same whatever else the run reads
// (Reader), so a warm run sends what a cold one sends, byte for byte.

// EventCacheName is the store of the records.
const EventCacheName = "otel-events"

// EventCacheVersion names the records' format and what they depend on
// besides the files (the caller adds the prices; lib/cache the build).
const EventCacheVersion = "otel-events-5/claude-code-2.1.328"

// record is what one session's transcripts give: its events in
// transcript order (without event.sequence nor user.id: send sets them),
// the warnings read with them, the fork copies it left to their owners
// (API messages by key, prompts and tool calls counted by forkKinds[1:]),
// the sessions its records name, and its events marshalled (pieces.go;
// nil: not built).
type record struct {
	events []Event
	warns  []string
	copied map[uint64]string
	left   [len(forkKinds) - 1]map[string]int
	seen   []string
	pieces *pieces
}

// snapshot is the stamps of a session's files, taken before they are
// read; cacheable is false once one could not be taken (or read).
type snapshot struct {
	main      cache.Stamp
	dir       cache.Stamp
	hasDir    bool
	subs      []subStamp
	cacheable bool
}

type subStamp struct {
	path string
	st   cache.Stamp
}

// subagentsDir stats a session's subagents dir: has is false when there
// is none (as transcript.Subagents reads it); ok false when it cannot be
// told.
func subagentsDir(path string) (st cache.Stamp, has, ok bool) {
	st, mode, err := cache.StatPath(layout.SubagentsDirOf(path))
	switch {
	case err == nil && mode == fs.ModeDir:
		return st, true, true
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return cache.Stamp{}, false, true
	}
	return cache.Stamp{}, false, false
}

// snapshot stamps a session's main transcript and subagents dir.
func (r *Reader) snapshot(path string) snapshot {
	var s snapshot
	if r.opts.Cache == nil {
		return s
	}
	st, mode, err := cache.StatPath(path)
	if err != nil || mode != 0 {
		return s
	}
	s.main = st
	s.dir, s.hasDir, s.cacheable = subagentsDir(path)
	return s
}

// sub stamps a subagent transcript before it is read.
func (s *snapshot) sub(path string) {
	if !s.cacheable {
		return
	}
	st, mode, err := cache.StatPath(path)
	if err != nil || mode != 0 {
		s.cacheable = false
		return
	}
	s.subs = append(s.subs, subStamp{path, st})
}

// holds says the session's files are still as stamped.
func (s *snapshot) holds(path string) bool {
	if st, mode, err := cache.StatPath(path); err != nil || mode != 0 || !st.Same(s.main) {
		return false
	}
	if dir, has, ok := subagentsDir(path); !ok || has != s.hasDir || !dir.Same(s.dir) {
		return false
	}
	for _, sub := range s.subs {
		if st, mode, err := cache.StatPath(sub.path); err != nil || mode != 0 || !st.Same(sub.st) {
			return false
		}
	}
	return true
}

// store keeps a session's record under its main transcript's path, when
// its files did not change while they were read, and the stamp of each
// other file under its own (the subagents dir under its path and a
// slash), which a lookup checks and counts (--cache-stats).
func (r *Reader) store(path string, s *snapshot, rec *record) {
	if !s.holds(path) {
		return
	}
	c := r.opts.Cache
	c.Put(path, &cache.Entry{Stamp: s.main, Offset: s.main.Size, Data: rec.encode(s)})
	if s.hasDir {
		c.Put(dirKey(path), &cache.Entry{Stamp: s.dir, Offset: s.dir.Size})
	}
	for _, sub := range s.subs {
		c.Put(sub.path, &cache.Entry{Stamp: sub.st, Offset: sub.st.Size})
	}
}

// segmentOf is the segment an entry's pieces were written to ("" none)
// and how many bytes of it they are.
func segmentOf(data []byte) (string, int64, bool) {
	d := cache.NewDecoder(data)
	seg := d.StrShared()
	n := d.Uvarint()
	return seg, int64(min(n, math.MaxInt64)), d.Err() == nil
}

// dirKey is the key of a session's subagents dir: never a transcript's.
func dirKey(path string) string {
	return layout.SubagentsDirOf(path) + string(filepath.Separator)
}

// cached is the record of the session at path when none of its files
// changed since it was stored: each is looked up in the store (a stat,
// no file opened), the main transcript first. The snapshot is the one
// the record was stored with.
func (r *Reader) cached(path string) (*record, snapshot, bool) {
	c := r.opts.Cache
	if c == nil {
		return nil, snapshot{}, false
	}
	st, mode, err := cache.StatPath(path)
	if err != nil || mode != 0 {
		return nil, snapshot{}, false
	}
	e, ok := c.Unchanged(path, st)
	if !ok {
		return nil, snapshot{}, false
	}
	// A record of its own: the exporter keeps its events until their
	// requests are built.
	rec := &record{}
	s, ok := rec.decode(e.Data, &replayBuf{})
	if !ok {
		return nil, snapshot{}, false
	}
	s.main = e.Stamp
	dir, has, ok := subagentsDir(path)
	if !ok || has != s.hasDir {
		return nil, snapshot{}, false
	}
	if has {
		if _, ok := c.Unchanged(dirKey(path), dir); !ok || dir != s.dir {
			return nil, snapshot{}, false
		}
	}
	for _, sub := range s.subs {
		st, mode, err := cache.StatPath(sub.path)
		if err != nil || mode != 0 {
			return nil, snapshot{}, false
		}
		if _, ok := c.Unchanged(sub.path, st); !ok || st != sub.st {
			return nil, snapshot{}, false
		}
	}
	return rec, s, true
}

// withPieces gives a record read (or taken from the cache) the pieces of
// this run's options, built now when it has none, others, or ones whose
// segment is gone; stored says the record's cache entry is then written
// again with them.
func (r *Reader) withPieces(path string, s *snapshot, rec *record, uid string, stored bool) {
	ps := r.opts.Pieces
	if ps == nil {
		return
	}
	if rec.pieces.usable(ps, uid) && rec.pieces.locate(ps) {
		rec.pieces.path, rec.pieces.uid = path, uid
		return
	}
	p, err := ps.build(rec.events, uid)
	if err != nil {
		rec.pieces = nil
		return
	}
	rec.pieces = p
	if stored && p.seg != "" {
		r.opts.Cache.Put(path, &cache.Entry{Stamp: s.main, Offset: s.main.Size, Data: rec.encode(s)})
	}
}

// RepairPieces builds again the pieces of the sessions of which a chunk
// did not read back from its segment in this run (damaged on disk), from
// their cached records, and stores them: the next run sends them from
// pieces again, instead of building those chunks with pdata run after
// run. Called after the export, before the pieces and the cache are
// closed; a session whose files changed meanwhile is left (its next read
// replaces its record). It returns how many sessions got new pieces.
func (r *Reader) RepairPieces() int {
	ps := r.opts.Pieces
	if ps == nil || r.opts.Cache == nil {
		return 0
	}
	ps.mu.Lock()
	damaged := ps.damaged
	ps.damaged = nil
	ps.mu.Unlock()
	n := 0
	for _, d := range damaged {
		rec, snap, ok := r.cached(d.path)
		if !ok {
			continue
		}
		rec.pieces = nil
		r.withPieces(d.path, &snap, rec, d.uid, true)
		if rec.pieces != nil && rec.pieces.seg != "" {
			n++
		}
	}
	return n
}

// replayBuf is the memory a cached record is decoded into.
type replayBuf struct {
	subs []subStamp
}

// recordRest is what a cached record holds of its events beyond what
// sending them from their pieces needs, read event by event on demand
// (Event.complete), from either goroutine of an export: the exporter's
// for an event built with pdata (a piece that did not read back). The
// events' attributes and API requests share its memory, grown as they
// are read (an event keeps what it was given when it moves on).
type recordRest struct {
	mu    sync.Mutex
	data  []byte
	tab   []string
	attrs []Attr
	apis  []APIRequest
}

// complete reads the rest of an event taken from the event cache (its
// session and id, version, time, attributes and API request): the
// exporter calls it before it builds the event with pdata. The store's
// checksum says the bytes are what encode wrote.
func (e *Event) complete() {
	r := e.rest
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if e.completed {
		return
	}
	e.completed = true
	d := cache.NewDecoder(r.data[e.restOff:])
	ref := func() string { return d.Ref(r.tab) }
	e.SessionID, e.ID, e.Version = ref(), d.StrShared(), ref()
	sec, nsec := d.Varint(), d.Varint()
	e.Time = time.Unix(sec, nsec).UTC()
	start := len(r.attrs)
	for na := d.Count(); na > 0 && d.Err() == nil; na-- {
		a := Attr{Key: ref()}
		a.Kind = AttrKind(d.Uvarint()) // (the byte, read as a varint below 128)
		switch a.Kind {
		case KindInt:
			a.Int = d.Varint()
		case KindFloat:
			a.Float = d.F64()
		default:
			a.Str = ref()
		}
		r.attrs = append(r.attrs, a)
	}
	e.Attrs = r.attrs[start:len(r.attrs):len(r.attrs)]
	if d.Bool() {
		a := APIRequest{Model: ref(), Input: d.Varint(), Output: d.Varint(), CacheRead: d.Varint(), CacheCreation: d.Varint(),
			CacheCreation5m: d.Varint(), CacheCreation1h: d.Varint(), CostUSD: d.F64(), Priced: d.Bool(),
			QuerySource: ref(), Effort: ref()}
		r.apis = append(r.apis, a)
		e.API = &r.apis[len(r.apis)-1]
	}
}

// encode writes the record and its snapshot: a table of the strings
// that repeat (attribute keys, models, session ids, versions), then the
// rest, which names them by index.
func (rec *record) encode(s *snapshot) []byte {
	var tab cache.StrTable
	ref := tab.Ref
	b := cache.AppendBool(nil, s.hasDir)
	if s.hasDir {
		b = cache.AppendStamp(b, s.dir)
	}
	b = cache.AppendUvarint(b, uint64(len(s.subs)))
	for _, sub := range s.subs {
		b = cache.AppendStr(b, sub.path)
		b = cache.AppendStamp(b, sub.st)
	}
	b = cache.AppendUvarint(b, uint64(len(rec.warns)))
	for _, w := range rec.warns {
		b = cache.AppendStr(b, w)
	}
	keys := make([]uint64, 0, len(rec.copied))
	for k := range rec.copied {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = cache.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		b = cache.AppendU64(b, k)
		b = ref(b, rec.copied[k])
	}
	for _, m := range rec.left {
		owners := make([]string, 0, len(m))
		for o := range m {
			owners = append(owners, o)
		}
		slices.Sort(owners)
		b = cache.AppendUvarint(b, uint64(len(owners)))
		for _, o := range owners {
			b = ref(b, o)
			b = cache.AppendVarint(b, int64(m[o]))
		}
	}
	b = cache.AppendUvarint(b, uint64(len(rec.seen)))
	for _, sid := range rec.seen {
		b = ref(b, sid)
	}
	b = cache.AppendUvarint(b, uint64(len(rec.events)))
	// Each event: what sending it from its pieces needs (its name, its
	// message, its ledger keys), then the rest, by its length: a decode
	// skips it, and reads it only for an event built with pdata
	// (Event.complete).
	var kr keyer
	var rest []byte
	for i := range rec.events {
		e := &rec.events[i]
		e.complete()
		b = ref(b, e.Name)
		b = cache.AppendU64(b, e.msgKey)
		for _, s := range signals {
			if member(s, e) {
				k := kr.key(s, e)
				b = append(b, k[:]...)
			}
		}
		rest = ref(rest[:0], e.SessionID)
		rest = cache.AppendStr(rest, e.ID)
		rest = ref(rest, e.Version)
		rest = cache.AppendVarint(rest, e.Time.Unix())
		rest = cache.AppendVarint(rest, int64(e.Time.Nanosecond()))
		rest = cache.AppendUvarint(rest, uint64(len(e.Attrs)))
		for _, a := range e.Attrs {
			rest = ref(rest, a.Key)
			rest = append(rest, byte(a.Kind))
			switch a.Kind {
			case KindInt:
				rest = cache.AppendVarint(rest, a.Int)
			case KindFloat:
				rest = cache.AppendF64(rest, a.Float)
			default:
				rest = ref(rest, a.Str)
			}
		}
		rest = cache.AppendBool(rest, e.API != nil)
		if a := e.API; a != nil {
			rest = ref(rest, a.Model)
			for _, v := range []int64{a.Input, a.Output, a.CacheRead, a.CacheCreation, a.CacheCreation5m, a.CacheCreation1h} {
				rest = cache.AppendVarint(rest, v)
			}
			rest = cache.AppendF64(rest, a.CostUSD)
			rest = cache.AppendBool(rest, a.Priced)
			rest = ref(rest, a.QuerySource)
			rest = ref(rest, a.Effort)
		}
		b = cache.AppendUvarint(b, uint64(len(rest)))
		b = append(b, rest...)
	}
	// The pieces, when they were written: the segment's name goes first
	// (segmentOf), the rest here.
	p, seg := rec.pieces, ""
	if p != nil && p.seg != "" {
		seg = p.seg
	}
	b = cache.AppendBool(b, seg != "")
	if seg != "" {
		b = cache.AppendU64(b, p.fp)
		b = cache.AppendUvarint(b, uint64(p.chunk))
		b = cache.AppendVarint(b, p.base)
		for _, chunks := range p.sig {
			b = cache.AppendUvarint(b, uint64(len(chunks)))
			for _, c := range chunks {
				b = cache.AppendUvarint(b, uint64(c.n))
				b = cache.AppendUvarint(b, uint64(c.crc))
			}
		}
	}
	var n int64
	if seg != "" {
		n = p.size()
	}
	return append(tab.Append(cache.AppendUvarint(cache.AppendStr(nil, seg), uint64(n))), b...)
}

// decode reads what encode wrote into rec (its memory from buf, which
// the next decode reuses), and the snapshot but for the main transcript's
// stamp; false on anything else. Its strings share data's memory (an
// entry's Data never changes).
func (rec *record) decode(data []byte, buf *replayBuf) (snapshot, bool) {
	d := cache.NewDecoder(data)
	seg := d.StrShared()
	d.Uvarint() // (the pieces' bytes: segmentOf)
	tab := cache.ReadStrTable(d)
	ref := func() string { return d.Ref(tab) }
	s := snapshot{cacheable: true}
	if s.hasDir = d.Bool(); s.hasDir {
		s.dir = d.Stamp()
	}
	s.subs = buf.subs[:0]
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		s.subs = append(s.subs, subStamp{d.StrShared(), d.Stamp()})
	}
	buf.subs = s.subs
	rec.warns = rec.warns[:0]
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		rec.warns = append(rec.warns, d.StrShared())
	}
	rec.copied = nil
	if n := d.Count(); n > 0 {
		rec.copied = make(map[uint64]string, n)
		for ; n > 0 && d.Err() == nil; n-- {
			k := d.U64()
			rec.copied[k] = ref()
		}
	}
	for i := range rec.left {
		rec.left[i] = nil
		n := d.Count()
		if n > 0 {
			rec.left[i] = make(map[string]int, n)
		}
		for ; n > 0 && d.Err() == nil; n-- {
			o := ref()
			rec.left[i][o] = int(d.Varint())
		}
	}
	rec.seen = rec.seen[:0]
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		rec.seen = append(rec.seen, ref())
	}
	n := d.Count()
	rec.events = slices.Grow(rec.events[:0], n)
	rest := &recordRest{data: data, tab: tab}
	for ; n > 0 && d.Err() == nil; n-- {
		e := Event{Name: ref(), msgKey: d.U64(), hasKeys: true, rest: rest}
		for si, s := range signals {
			if member(s, &e) {
				copy(e.keys[si][:], d.Fixed(len(Key{})))
			}
		}
		nr := d.Count()
		e.restOff = len(data) - d.Left()
		d.Fixed(nr)
		rec.events = append(rec.events, e)
	}
	rec.pieces = nil
	if d.Bool() {
		// (Lengths in the segment, not in data: not Count, which bounds
		// a count by the bytes left.)
		p := &pieces{seg: seg, fp: d.U64(), chunk: int(min(d.Uvarint(), 1<<20)), base: d.Varint()}
		for si, sig := range signals {
			n := d.Count()
			// As many chunks as the events make: anything else is not
			// what encode wrote.
			events := 0
			for i := range rec.events {
				if member(sig, &rec.events[i]) {
					events++
				}
			}
			if p.chunk < 1 || n != (events+p.chunk-1)/p.chunk || seg == "" || p.base < 0 {
				d.Fail()
			}
			if n > 0 && d.Err() == nil {
				p.sig[si] = make([]piece, 0, n)
			}
			for ; n > 0 && d.Err() == nil; n-- {
				n, crc := d.Uvarint(), d.Uvarint()
				if n > maxPiece || crc > math.MaxUint32 {
					d.Fail()
				}
				p.sig[si] = append(p.sig[si], piece{n: int(n), crc: uint32(crc)})
			}
		}
		rec.pieces = p
	}
	if !d.Done() {
		return s, false
	}
	return s, true
}
