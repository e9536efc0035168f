package extract

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/transcript"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// The cache of every kind but usage keeps, per transcript file, the facts
// the kind's reader gave of it: each fact as the line of JSON it prints
// (with its timestamp, which --since and --until read), each warning, in
// the order they came, and what the file's read added to the counts kept
// across files (the calls a fork copied). A warm run hands those on for
// an unchanged file without opening it: no decode, no join, no encode.
// A grown file's facts up to its checkpoint (kindtail.go: the last line
// after which nothing waited for a later one) are handed on from the
// record, and the file is read on from there with the state kept at that
// line: the appended lines, and the few before them that a join still
// waited on. Anything else (new, rewritten, shrunk, replaced, compressed)
// is read from the start and its facts kept again.
//
// What a file's facts depend on besides its bytes is kept with them and
// looked at again: the origin it was read under (a subagent's transcript
// read through its session names that session), a tool result's file
// beside it (tool-results/, whose presence a Tool or Shell fact says), and
// the subagent listing of the session (the subagents kind's ids and
// .meta.json fields). A flag that changes which facts a file gives
// (--errors, --all, --thinking) names the store (CacheName); the flags
// that act on the facts after (--since, --until, --unique, --jq, the
// output format) act on the cached ones as on fresh ones.

// CacheVersion names the cached facts' format of kind: a change to the
// facts a kind gives, or to this format, changes it.
func CacheVersion(kind string) string {
	if kind == "usage" {
		return usage.FactsCacheVersion
	}
	return "facts-2"
}

// CacheName is the store name of opts' facts: one per kind, and per
// switch that changes the facts a kind's reader gives.
func CacheName(opts Options) string {
	if opts.Kind == "usage" {
		return usage.FactsCacheName(opts.Prices != nil, opts.Sum != "")
	}
	name := "extract-" + opts.Kind
	for _, s := range []struct {
		on   bool
		name string
	}{{opts.Thinking, "thinking"}, {opts.All, "all"}, {opts.Errors, "errors"}, {opts.KeepCopies, "copies"}} {
		if s.on {
			name += "-" + s.name
		}
	}
	return name
}

// OpenCache opens the store of opts' facts in dir. Every kind's but
// usage's is mapped (cache.OpenMapped): the readers of its entries
// (openEntry, the subagent lists) take them through Store.Data; lib/usage
// reads its entries itself.
func OpenCache(dir string, opts Options) *cache.Store {
	if opts.Kind == "usage" {
		return cache.Open(dir, CacheName(opts), CacheVersion(opts.Kind))
	}
	return cache.OpenMapped(dir, CacheName(opts), CacheVersion(opts.Kind))
}

// encodedFact is a fact as its line of JSON, with the timestamp of its
// entry (a Base's: stamped reads it); v is the fact itself when it was
// just made (nil when it came from the cache).
type encodedFact struct {
	line json.RawMessage
	ts   string
	v    any
}

func (f *encodedFact) stamp() *string { return &f.ts }

// plainFact is a fact without a timestamp, as its line of JSON.
type plainFact []byte

// encodedOut hands a cached or recorded fact to emit as the JSON it is
// (cli.Output prints a json.RawMessage untouched, and runs --jq on it as
// on the encoded fact), a stamped one as a pointer to its line (no
// allocation per fact; emit keeps neither).
func encodedOut(emit func(any) error) func(any) error {
	return func(v any) error {
		switch f := v.(type) {
		case *encodedFact:
			return emit(&f.line)
		case plainFact:
			return emit(json.RawMessage(f))
		}
		return emit(v)
	}
}

// fileOf is the File a files fact stands for (--unique sums them).
func fileOf(v any) (File, bool) {
	switch f := v.(type) {
	case File:
		return f, true
	case *encodedFact:
		if fv, ok := f.v.(File); ok {
			return fv, true
		}
		if f.v != nil {
			return File{}, false
		}
		var fv File
		if json.Unmarshal(f.line, &fv) == nil && fv.Path != "" {
			return fv, true
		}
	}
	return File{}, false
}

// The events of a file's record.
const (
	evFact  = 1 // a stamped fact: its timestamp, its line
	evPlain = 2 // a fact without a timestamp: its line
	evWarn  = 3 // a warning
)

// The dependencies of a file's record.
const (
	depResult = 1 // a tool result's file: the recorded path, the local one found ("" none)
	depDir    = 2 // a dir listed: its path, whether it was there, its stamp
)

// checkpoint is where a grown file is read on from: the end of the last
// whole line after which the handler was quiet, and how far the record
// and the read's counts had come there.
type checkpoint struct {
	events, deps, ndep int // the record's events, dependencies' bytes and number
	off                int64
	line, n, warned    int // readAt's
	notSeen, seen      int // records without a type; call ids seen (the joiner's seenLog)
}

// factLog is a file's record being written, as its read gives facts.
type factLog struct {
	b    []byte // the events
	deps []byte
	path string
	enc  *json.Encoder
	buf  bytes.Buffer
	line []byte // an Appender's line
	ndep int
	dirs map[string]bool
	// The last checkpoint, when cp is set: the copies counted and the
	// handler's state there (the copies copied only when they changed).
	cp        checkpoint
	hasCP     bool
	cpCopies  []byte
	copiesGen int
	cpState   []byte
	// fh and size are the plain file read and its size when stamped.
	fh   *os.File
	size int64
}

func newFactLog(path string) *factLog {
	l := &factLog{path: path, copiesGen: -1}
	l.enc = json.NewEncoder(&l.buf)
	l.enc.SetEscapeHTML(false) // as ndjson.Writer encodes
	return l
}

// fact records v and returns what stands for it: its line of JSON, a
// slice of the record (bytes written are never changed).
func (l *factLog) fact(v any) (any, error) {
	line, err := l.encode(v)
	if err != nil {
		return nil, err
	}
	s, ok := v.(stamped)
	if ok {
		l.b = cache.AppendUvarint(l.b, evFact)
		l.b = cache.AppendStr(l.b, deref(s.stamp()))
	} else {
		l.b = cache.AppendUvarint(l.b, evPlain)
	}
	l.b = cache.AppendUvarint(l.b, uint64(len(line)))
	start := len(l.b)
	l.b = append(l.b, line...)
	kept := l.b[start:len(l.b):len(l.b)]
	switch f := v.(type) {
	case Tool:
		l.result(f.PersistedOutputPath, f.PersistedOutputLocalPath)
	case Shell:
		l.result(f.PersistedOutputPath, f.PersistedOutputLocalPath)
	}
	if !ok {
		return plainFact(kept), nil
	}
	return &encodedFact{line: kept, ts: deref(s.stamp()), v: v}, nil
}

// encode is v's line of JSON, as ndjson.Writer writes it (valid until the
// next call).
func (l *factLog) encode(v any) ([]byte, error) {
	if a, ok := v.(ndjson.Appender); ok {
		line, ok := a.AppendJSON(l.line[:0])
		l.line = line
		if ok {
			return line, nil
		}
	}
	l.buf.Reset()
	if err := l.enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(l.buf.Bytes(), []byte("\n")), nil
}

func (l *factLog) warn(msg string) {
	l.b = cache.AppendUvarint(l.b, evWarn)
	l.b = cache.AppendStr(l.b, msg)
}

// result notes that a fact says whether a tool result's file is beside
// the transcript.
func (l *factLog) result(rec, local *string) {
	if rec == nil {
		return
	}
	l.deps = cache.AppendUvarint(l.deps, depResult)
	l.deps = cache.AppendStr(l.deps, *rec)
	l.deps = cache.AppendStr(l.deps, deref(local))
	l.ndep++
}

// listed notes a dir the read listed (a session's subagents).
func (l *factLog) listed(dir string) {
	if l.dirs[dir] {
		return
	}
	if l.dirs == nil {
		l.dirs = map[string]bool{}
	}
	l.dirs[dir] = true
	st, _, err := cache.StatPath(dir)
	l.deps = cache.AppendUvarint(l.deps, depDir)
	l.deps = cache.AppendStr(l.deps, dir)
	l.deps = cache.AppendBool(l.deps, err == nil)
	if err != nil {
		st = cache.Stamp{}
	}
	l.deps = cache.AppendStamp(l.deps, st)
	l.ndep++
}

// mark takes a line the read handed on as the checkpoint when it is whole
// and the handler t is quiet after it.
// A line with End -1 is the end of the read (the lines the reader skipped
// after the last one handed on change no state but the call ids seen):
// the end of the file, when it ends a line.
func (l *factLog) mark(t tailState, cp *copies, r *fileRead, ln *transcript.Line) {
	if ln.Partial || !t.quiet() {
		return
	}
	end := ln.End
	if end < 0 {
		var last [1]byte
		if l.size == 0 || l.fh == nil {
			return
		}
		if _, err := l.fh.ReadAt(last[:], l.size-1); err != nil || last[0] != '\n' {
			return
		}
		end = l.size
	}
	l.cp = checkpoint{events: len(l.b), deps: len(l.deps), ndep: l.ndep, off: end, line: ln.Number,
		n: r.n, warned: r.warned, notSeen: ln.NotEntries + r.notBase}
	if j := t.joined(); j != nil {
		l.cp.seen = len(j.seenLog)
	}
	if cp.gen != l.copiesGen {
		l.cpCopies, l.copiesGen = appendCopies(l.cpCopies[:0], cp), cp.gen
	}
	l.cpState = t.saveState(l.cpState[:0])
	l.hasCP = true
}

func appendCopies(b []byte, cp *copies) []byte {
	b = cache.AppendUvarint(b, uint64(len(cp.left)))
	for owner, n := range cp.left {
		b = cache.AppendStr(b, owner)
		b = cache.AppendUvarint(b, uint64(n))
	}
	b = cache.AppendUvarint(b, uint64(len(cp.read)))
	for sid := range cp.read {
		b = cache.AppendStr(b, sid)
	}
	return b
}

// skipCopies reads past what appendCopies wrote.
func skipCopies(d *cache.Decoder) {
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		d.StrShared()
		d.Uvarint()
	}
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		d.StrShared()
	}
}

// addRecorded takes in the counts a record kept (appendCopies' bytes),
// as add takes another reader's, without a copies of its own: the bytes
// may lie in a store's map, so what c keeps of them is copied.
func (c *copies) addRecorded(b []byte) {
	d := cache.NewDecoder(b)
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		owner, k := d.StrShared(), int(d.Uvarint())
		if c.left == nil {
			c.left = map[string]int{}
		}
		c.left[strings.Clone(owner)] += k
	}
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		if id := d.StrShared(); id != c.last {
			if _, ok := c.read[id]; !ok {
				c.sawSession(strings.Clone(id))
			}
		}
	}
}

func readCopies(d *cache.Decoder) (cp copies) {
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		if cp.left == nil {
			cp.left = map[string]int{}
		}
		owner := d.Str()
		cp.left[owner] = int(d.Uvarint())
	}
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		cp.sawSession(d.Str())
	}
	return cp
}

// data is the record: the origin the file was read under, its events,
// then a trailer (its length in the last 4 bytes): the counts its read
// added, its dependencies and its checkpoint, if any. Events come first
// so that a grown file's record keeps the bytes before its checkpoint.
func (l *factLog) data(o Origin, cp *copies, j *joiner) []byte {
	b := make([]byte, 0, len(l.b)+len(l.deps)+len(l.cpCopies)+len(l.cpState)+128)
	b = cache.AppendStr(b, o.SessionID)
	b = cache.AppendStr(b, o.AgentID)
	b = append(b, l.b...)
	t := len(b)
	b = appendCopies(b, cp)
	b = cache.AppendUvarint(b, uint64(l.ndep))
	b = cache.AppendUvarint(b, uint64(len(l.deps)))
	b = append(b, l.deps...)
	b = cache.AppendBool(b, l.hasCP)
	if l.hasCP {
		c := &l.cp
		for _, v := range []int{c.events, c.deps, c.ndep, int(c.off), c.line, c.n, c.warned, c.notSeen} {
			b = cache.AppendUvarint(b, uint64(v))
		}
		var seen []string
		if j != nil {
			seen = j.seenLog[:c.seen]
		}
		b = cache.AppendUvarint(b, uint64(len(seen)))
		for _, id := range seen {
			b = cache.AppendStr(b, id)
		}
		b = cache.AppendUvarint(b, uint64(len(l.cpCopies)))
		b = append(b, l.cpCopies...)
		b = cache.AppendUvarint(b, uint64(len(l.cpState)))
		b = append(b, l.cpState...)
	}
	return binary.LittleEndian.AppendUint32(b, uint32(len(b)-t))
}

// record is a file's record read back.
type record struct {
	// copies are the counts the file's read added, as appendCopies wrote
	// them (readCopies, or copies.addRecorded).
	copies []byte
	events []byte
	deps   []byte
	// tail is the checkpoint, nil when the record has none (or it was
	// not asked for).
	tail *tailRecord
}

// tailRecord is what a read on from a checkpoint starts from.
type tailRecord struct {
	cp     checkpoint
	seen   []string
	copies copies
	state  []byte
	// events and deps are the record's up to the checkpoint.
	events, deps []byte
}

// openEntry opens the record of a file's entry in c, as a copy when the
// store is mapped (cache.Store.Data): the facts handed on keep it.
func openEntry(c *cache.Store, e *cache.Entry, f file, tail bool) (record, bool) {
	data, ok := c.Data(e)
	if !ok {
		return record{}, false
	}
	return openRecord(data, f, tail)
}

// openRecord reads a record and checks what it depends on; ok is false
// when the record is not what was written or no longer holds. Its
// checkpoint is read back only when tail is set (a grown file's read
// on needs it; an unchanged one's facts do not).
func openRecord(data []byte, f file, tail bool) (rec record, ok bool) {
	if len(data) < 4 {
		return rec, false
	}
	tl := int(binary.LittleEndian.Uint32(data[len(data)-4:]))
	d := cache.NewDecoder(data[:len(data)-4])
	if d.StrShared() != f.origin.SessionID || d.StrShared() != f.origin.AgentID || d.Err() != nil || tl > d.Left() {
		return rec, false
	}
	rest := data[len(data)-4-d.Left() : len(data)-4]
	rec.events = rest[:len(rest)-tl]
	d = cache.NewDecoder(rest[len(rest)-tl:])
	before := d.Left()
	skipCopies(d)
	rec.copies = rest[len(rest)-tl:][:before-d.Left()]
	ndep := d.Count()
	rec.deps = d.Bytes()
	if !depsHold(rec.deps, ndep, f) {
		return record{}, false
	}
	if d.Bool() {
		var t tailRecord
		c := &t.cp
		for _, v := range []*int{&c.events, &c.deps, &c.ndep, nil, &c.line, &c.n, &c.warned, &c.notSeen} {
			if v == nil {
				c.off = int64(d.Uvarint())
			} else {
				*v = int(d.Uvarint())
			}
		}
		for n := d.Count(); n > 0 && d.Err() == nil; n-- {
			if id := d.StrShared(); tail {
				t.seen = append(t.seen, strings.Clone(id))
			}
		}
		if cp := d.Bytes(); tail {
			t.copies = readCopies(cache.NewDecoder(cp))
		}
		t.state = d.Bytes()
		if tail && c.events <= len(rec.events) && c.deps <= len(rec.deps) && c.off >= 0 {
			t.events, t.deps = rec.events[:c.events], rec.deps[:c.deps]
			kept := t // t itself stays off the heap when no tail is asked for
			rec.tail = &kept
		}
	}
	if !d.Done() {
		return record{}, false
	}
	return rec, true
}

// depsHold reports whether the n dependencies in deps are as they were.
func depsHold(deps []byte, n int, f file) bool {
	d := cache.NewDecoder(deps)
	for ; n > 0 && d.Err() == nil; n-- {
		switch d.Uvarint() {
		case depResult:
			rec, local := d.StrShared(), d.StrShared() // localPersisted keeps neither
			if d.Err() == nil && deref(localPersisted(f.path, &rec)) != local {
				return false
			}
		case depDir:
			dir, there, st := d.Str(), d.Bool(), d.Stamp()
			now, _, err := cache.StatPath(dir)
			if d.Err() == nil && (there != (err == nil) || (err == nil && now != st) || (err != nil && !errors.Is(err, fs.ErrNotExist))) {
				return false
			}
		default:
			d.Fail()
		}
	}
	return d.Done()
}

// replay hands on a record's events as the read gave them, the facts
// through emit; with one, each stamped fact in it (an emit that keeps
// none: takeCached's).
func (x *Extractor) replay(ctx context.Context, events []byte, emit func(any) error, one *encodedFact) error {
	d := cache.NewDecoder(events)
	for n := 0; d.Left() > 0 && d.Err() == nil; n++ {
		if n%1024 == 1023 && ctx.Err() != nil {
			return ctx.Err()
		}
		var err error
		switch d.Uvarint() {
		case evFact:
			ts := d.StrShared()
			line := d.Bytes()
			if d.Err() == nil {
				if one == nil {
					err = emit(&encodedFact{line: line, ts: ts})
				} else {
					one.line, one.ts = line, ts
					err = emit(one)
				}
			}
		case evPlain:
			line := d.Bytes()
			if d.Err() == nil {
				err = emit(plainFact(line))
			}
		case evWarn:
			msg := d.StrShared()
			if d.Err() == nil {
				x.opts.Warn(strings.Clone(msg))
			}
		default:
			d.Fail()
		}
		if err != nil {
			return err
		}
	}
	if d.Err() != nil {
		return errRecordCorrupt
	}
	return nil
}

// errRecordCorrupt: a record that is not what was written, found while
// its facts were handed on (the store's checksum makes that all but
// impossible): the facts before it are out, so the run fails.
var errRecordCorrupt = errors.New("the cache's record is not what was written; dropped: run again (or with --no-cache)")

// replayed ends a record's replay: a corrupt one is dropped and the file
// counted unreadable.
func (x *Extractor) replayed(err error, f file, c *cache.Store) error {
	if errors.Is(err, errRecordCorrupt) {
		c.Delete(f.path)
		x.unreadable++
		x.opts.Warn(f.path + ": " + err.Error())
		return nil
	}
	return err
}

// readOnHook, when set (tests), is told where a grown file is read on from.
var readOnHook func(path string, off int64)

// afterReadHook, when set (tests), runs between a file's read and the
// stat that says it did not change meanwhile.
var afterReadHook func()

// readCached reads f through the cache c: an unchanged file's facts from
// its record, the file unopened; a grown one's up to its checkpoint from
// the record and the rest from the file; any other file read whole. The
// facts read are recorded as they are handed on, and kept when the read
// was clean and the file did not change under it.
//
// A file fileJob.queue looked at (regular, stamp, not unchanged, or its
// record did not open) is not looked at again.
func (x *Extractor) readCached(ctx context.Context, f file, c *cache.Store) error {
	st := f.stamp
	if !f.looked {
		var mode fs.FileMode
		var serr error
		st, mode, serr = cache.StatPath(f.path)
		if serr != nil || !mode.IsRegular() {
			return x.readPlain(ctx, f) // it says what is wrong; nothing is kept
		}
		if e, ok := c.Unchanged(f.path, st); ok {
			if rec, ok := openEntry(c, e, f, false); ok {
				err := x.replay(ctx, rec.events, x.emit, nil)
				if err == nil {
					x.copies = readCopies(cache.NewDecoder(rec.copies))
				}
				return x.replayed(err, f, c)
			}
		}
	}
	rc, err := transcript.Open(f.path)
	if err != nil {
		return x.readPlain(ctx, f) // it fails the same way, and says so
	}
	fh, plain := rc.(*os.File)
	if !plain {
		// Compressed: read whole, kept for that exact file only.
		rc.Close()
		return x.readLogged(ctx, f, c, st, nil, nil)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return x.readPlain(ctx, f)
	}
	st = cache.StampOf(fi)
	at := &readAt{fh: fh}
	e, state := c.Lookup(f.path, st, fh)
	var rec record
	if state != cache.Miss {
		var ok bool
		if rec, ok = openEntry(c, e, f, state == cache.Grown); !ok || (state == cache.Grown && rec.tail == nil) {
			rec = record{}
		}
	}
	switch {
	case state == cache.Fresh && rec.events != nil:
		err := x.replay(ctx, rec.events, x.emit, nil)
		if err == nil {
			x.copies = readCopies(cache.NewDecoder(rec.copies))
		}
		return x.replayed(err, f, c)
	case state == cache.Grown && rec.tail != nil:
		cp := &rec.tail.cp
		if err := x.replay(ctx, rec.events[:cp.events], x.emit, nil); err != nil {
			return x.replayed(err, f, c)
		}
		at = &readAt{fh: fh, off: cp.off, line: cp.line, n: cp.n, warned: cp.warned, notSeen: cp.notSeen}
		if readOnHook != nil {
			readOnHook(f.path, cp.off)
		}
	default:
		rec = record{}
	}
	return x.readLogged(ctx, f, c, st, at, rec.tail)
}

// readLogged reads f (from at, or whole by path when at is nil) and keeps
// its record when the read was clean and the file's stamp did not change
// under it; from a checkpoint, the record's bytes before it come first
// and the handler starts from its state.
func (x *Extractor) readLogged(ctx context.Context, f file, c *cache.Store, st cache.Stamp, at *readAt, from *tailRecord) error {
	l := newFactLog(f.path)
	l.size = st.Size
	if at != nil {
		l.fh = at.fh
	}
	t := tailOf(x.h)
	emit, warn := x.emit, x.opts.Warn
	x.emit = func(v any) error {
		fv, err := l.fact(v)
		if err != nil {
			return err
		}
		return emit(fv)
	}
	x.opts.Warn = func(msg string) {
		l.warn(msg)
		warn(msg)
	}
	x.listed = l.listed
	if at != nil && t != nil {
		x.mark = func(r *fileRead, ln *transcript.Line) { l.mark(t, &x.copies, r, ln) }
		if j := t.joined(); j != nil {
			j.logSeen = true
		}
	}
	defer func() { x.emit, x.opts.Warn, x.listed, x.mark = emit, warn, nil, nil }()
	if from != nil && at != nil && at.off > 0 {
		l.b = append(l.b, from.events...)
		l.deps = append(l.deps, from.deps...)
		l.ndep = from.cp.ndep
		x.copies = from.copies
		t.loadState(cache.NewDecoder(from.state))
		if j := t.joined(); j != nil {
			for _, id := range from.seen {
				j.noteSeen(id)
			}
		}
	}
	var err error
	if at != nil {
		err = x.readFrom(ctx, f, at)
	} else {
		err = x.readPlain(ctx, f)
	}
	if err != nil || ctx.Err() != nil || x.unreadable > 0 {
		return err
	}
	if afterReadHook != nil {
		afterReadHook()
	}
	after, _, serr := cache.StatPath(f.path)
	if serr != nil || !after.Same(st) {
		return nil
	}
	var j *joiner
	if t != nil {
		j = t.joined()
	}
	e := &cache.Entry{Stamp: st, Offset: st.Size, Data: l.data(f.origin, &x.copies, j)}
	if at != nil {
		if tail, err := cache.TailHash(at.fh, st.Size); err == nil {
			e.Tail = tail
		} else {
			return nil
		}
	}
	if from != nil && at != nil && at.off > 0 {
		// The origin and the events before the checkpoint are the old
		// record's: only the rest goes to the store's journal.
		keep := len(cache.AppendStr(cache.AppendStr(nil, f.origin.SessionID), f.origin.AgentID)) + len(from.events)
		c.Extend(f.path, e, keep)
		return nil
	}
	c.Put(f.path, e)
	return nil
}
