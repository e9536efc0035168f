package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"

	"github.com/ccpipe/ccpipe/lib/cache"
)

// The cache of every kind but usage keeps, per transcript file, the facts
// the kind's reader gave of it: each fact as the line of JSON it prints
// (with its timestamp, which --since and --until read), each warning, in
// the order they came, and what the file's read added to the counts kept
// across files (the calls a fork copied). A warm run hands those on for
// an unchanged file without opening it: no decode, no join, no encode.
// Anything else (new, grown, rewritten, shrunk, replaced) is read from
// the start and its facts kept again: a kind's joins (a tool_use and its
// result, a failure and its hook) hold state that only a read of the
// whole file rebuilds.
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
		return UsageCacheVersion
	}
	return "facts-1"
}

// CacheName is the store name of opts' facts: one per kind, and per
// switch that changes the facts a kind's reader gives.
func CacheName(opts Options) string {
	if opts.Kind == "usage" {
		return UsageCacheName(opts.Prices != nil, opts.Sum != "")
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

// encodedFact is a fact as its line of JSON, with the timestamp of its
// entry (a Base's: stamped reads it); v is the fact itself when it was
// just made (nil when it came from the cache).
type encodedFact struct {
	line []byte
	ts   string
	v    any
}

func (f *encodedFact) stamp() *string { return &f.ts }

// plainFact is a fact without a timestamp, as its line of JSON.
type plainFact []byte

// encodedOut hands a cached or recorded fact to emit as the JSON it is
// (cli.Output prints a json.RawMessage untouched, and runs --jq on it as
// on the encoded fact).
func encodedOut(emit func(any) error) func(any) error {
	return func(v any) error {
		switch f := v.(type) {
		case *encodedFact:
			return emit(json.RawMessage(f.line))
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

// factLog is a file's record being written, as its read gives facts.
type factLog struct {
	b    []byte // the events
	deps []byte
	path string
	enc  *json.Encoder
	buf  bytes.Buffer
	ndep int
	dirs map[string]bool
}

func newFactLog(path string) *factLog {
	l := &factLog{path: path}
	l.enc = json.NewEncoder(&l.buf)
	l.enc.SetEscapeHTML(false) // as ndjson.Writer encodes
	return l
}

// fact records v and returns what stands for it: its line of JSON, a
// slice of the record (bytes written are never changed).
func (l *factLog) fact(v any) (any, error) {
	l.buf.Reset()
	if err := l.enc.Encode(v); err != nil {
		return nil, err
	}
	line := bytes.TrimSuffix(l.buf.Bytes(), []byte("\n"))
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

// data is the record: the origin the file was read under, the counts its
// read added, its dependencies, then its events.
func (l *factLog) data(o Origin, cp *copies) []byte {
	b := make([]byte, 0, len(l.b)+len(l.deps)+64)
	b = cache.AppendStr(b, o.SessionID)
	b = cache.AppendStr(b, o.AgentID)
	b = cache.AppendUvarint(b, uint64(len(cp.left)))
	for owner, n := range cp.left {
		b = cache.AppendStr(b, owner)
		b = cache.AppendUvarint(b, uint64(n))
	}
	b = cache.AppendUvarint(b, uint64(len(cp.read)))
	for sid := range cp.read {
		b = cache.AppendStr(b, sid)
	}
	b = cache.AppendUvarint(b, uint64(l.ndep))
	b = append(b, l.deps...)
	return append(b, l.b...)
}

// record is a file's record read back: its events still to hand on.
type record struct {
	copies copies
	events *cache.Decoder
}

// openRecord reads a record's head and checks what it depends on; ok is
// false when the record is not what was written or no longer holds.
func openRecord(data []byte, f file) (rec record, ok bool) {
	d := cache.NewDecoder(data)
	if d.StrShared() != f.origin.SessionID || d.StrShared() != f.origin.AgentID {
		return rec, false
	}
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		if rec.copies.left == nil {
			rec.copies.left = map[string]int{}
		}
		owner := d.Str()
		rec.copies.left[owner] = int(d.Uvarint())
	}
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		rec.copies.sawSession(d.Str())
	}
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		switch d.Uvarint() {
		case depResult:
			rec, local := d.Str(), d.StrShared()
			if d.Err() == nil && deref(localPersisted(f.path, &rec)) != local {
				return record{}, false
			}
		case depDir:
			dir, there, st := d.Str(), d.Bool(), d.Stamp()
			now, _, err := cache.StatPath(dir)
			if d.Err() == nil && (there != (err == nil) || (err == nil && now != st) || (err != nil && !errors.Is(err, fs.ErrNotExist))) {
				return record{}, false
			}
		default:
			d.Fail()
		}
	}
	if d.Err() != nil {
		return record{}, false
	}
	rec.events = d
	return rec, true
}

// replay hands on a record's events as the read gave them.
func (x *Extractor) replay(ctx context.Context, rec record) error {
	d := rec.events
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
				err = x.emit(&encodedFact{line: line, ts: ts})
			}
		case evPlain:
			line := d.Bytes()
			if d.Err() == nil {
				err = x.emit(plainFact(line))
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
	x.copies = rec.copies
	return nil
}

// errRecordCorrupt: a record that is not what was written, found while
// its facts were handed on (the store's checksum makes that all but
// impossible): the facts before it are out, so the run fails.
var errRecordCorrupt = errors.New("the cache's record is not what was written; dropped: run again (or with --no-cache)")

// readCached reads f through the cache c: an unchanged file's facts from
// its record, the file unopened; any other file read whole, its facts
// recorded as they are handed on and kept when the read was clean and
// the file did not change under it.
func (x *Extractor) readCached(ctx context.Context, f file, c *cache.Store) error {
	st, mode, serr := cache.StatPath(f.path)
	plain := serr == nil && mode.IsRegular()
	if plain {
		if e, ok := c.Unchanged(f.path, st); ok {
			if rec, ok := openRecord(e.Data, f); ok {
				err := x.replay(ctx, rec)
				if errors.Is(err, errRecordCorrupt) {
					c.Delete(f.path)
					x.unreadable++
					x.opts.Warn(f.path + ": " + err.Error())
					return nil
				}
				return err
			}
		}
	}
	l := newFactLog(f.path)
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
	defer func() { x.emit, x.opts.Warn, x.listed = emit, warn, nil }()
	err := x.readPlain(ctx, f)
	if err != nil || ctx.Err() != nil || x.unreadable > 0 || !plain {
		return err
	}
	if after, _, err := cache.StatPath(f.path); err == nil && after == st {
		c.Put(f.path, &cache.Entry{Stamp: st, Offset: st.Size, Data: l.data(f.origin, &x.copies)})
	}
	return nil
}
