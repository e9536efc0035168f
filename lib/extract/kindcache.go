package extract

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// The cache of every kind but usage keeps, per transcript file, what the
// kind's reader handed its handler from the file's complete lines: each
// entry as decoded (entrycodec.go), each skipped line's warning, and the
// call ids the line filter noted, in file order (an entry log), with how
// many lines that was and what the read counted. A warm run replays the
// log into the same handler a cold run feeds from the file, then reads
// the lines appended since: one join (a tool_use and its result, a
// failure and its hook, a fork's copies), whichever side of the cache's
// offset the records are on. What the facts depend on besides the
// transcript (a tool result's file beside it, the --since window) is
// looked at by the join, as on a cold run.

// CacheVersion names the cached facts' format of kind: a change to what
// the kinds' readers hand on, or to the codec, changes it.
func CacheVersion(kind string) string {
	if kind == "usage" {
		return UsageCacheVersion
	}
	return "entry-log-1"
}

// CacheName is the store name of opts' facts: one per kind, and per
// switch that changes the lines a kind's reader hands on (texts and
// conversation read thinking blocks only with Thinking).
func CacheName(opts Options) string {
	if opts.Kind == "usage" {
		return UsageCacheName(opts.Prices != nil, opts.Sum != "")
	}
	name := "extract-" + opts.Kind
	if opts.Thinking {
		name += "-thinking"
	}
	return name
}

// keepsRaw says whether the kind's handler reads Entry.Raw (the whole
// line), which its entry log then keeps.
func (x *Extractor) keepsRaw() bool { return x.opts.Kind == "failures" }

// The events of an entry log.
const (
	evWarn     = 1 // a skipped line: line, message
	evEntry    = 2 // a line's entry: line, entry
	evDecodeEr = 3 // a line its decode refused: line, message
	evSeen     = 4 // a call id the line filter noted: id
)

// logTrailer ends an entry log: lines, records without a "type",
// malformed lines (8 bytes each), then a byte of flags (1: a line looked
// like an entry; 2: read whole, compressed: never read on from).
const logTrailer = 3*8 + 1

// entryLog is an entry log being written.
type entryLog struct {
	b   []byte
	raw bool
}

func (l *entryLog) warning(line int, err error) {
	l.b = cache.AppendUvarint(l.b, evWarn)
	l.b = cache.AppendVarint(l.b, int64(line))
	l.b = cache.AppendStr(l.b, err.Error())
}

func (l *entryLog) line(line int, e *transcript.Entry, derr error) {
	if derr != nil {
		l.b = cache.AppendUvarint(l.b, evDecodeEr)
		l.b = cache.AppendVarint(l.b, int64(line))
		l.b = cache.AppendStr(l.b, derr.Error())
		return
	}
	l.b = cache.AppendUvarint(l.b, evEntry)
	l.b = cache.AppendVarint(l.b, int64(line))
	l.b = appendEntry(l.b, e, l.raw)
}

func (l *entryLog) seen(id string) {
	l.b = cache.AppendUvarint(l.b, evSeen)
	l.b = cache.AppendStr(l.b, id)
}

// data is the log with its trailer: an Entry's Data.
func (l *entryLog) data(d readDiag, whole bool) []byte {
	b := make([]byte, 0, len(l.b)+logTrailer)
	b = append(b, l.b...)
	for _, v := range []int{d.lines, d.notEntries, d.malformed} {
		b = cache.AppendU64(b, uint64(v))
	}
	flags := byte(0)
	if d.sawEntry {
		flags |= 1
	}
	if whole {
		flags |= 2
	}
	return append(b, flags)
}

// splitLog is data's events and trailer; ok is false when data is not
// what entryLog.data wrote.
func splitLog(data []byte) (events []byte, d readDiag, whole, ok bool) {
	if len(data) < logTrailer {
		return nil, d, false, false
	}
	events, t := data[:len(data)-logTrailer], data[len(data)-logTrailer:]
	n := func(i int) int { return int(binary.LittleEndian.Uint64(t[8*i:])) }
	d = readDiag{lines: n(0), notEntries: n(1), malformed: n(2), sawEntry: t[24]&1 != 0}
	if t[24]&^3 != 0 || d.lines < 0 || d.notEntries < 0 || d.malformed < 0 {
		return nil, d, false, false
	}
	return events, d, t[24]&2 != 0, true
}

// joined is a handler whose line filter notes call ids in its joiner.
type joined interface{ joinerOf() *joiner }

func (h *toolsKind) joinerOf() *joiner { return h.j }
func (h *subagents) joinerOf() *joiner { return h.j }

// errLogCorrupt: an entry log that is not what was written (the store's
// checksum makes that all but impossible).
var errLogCorrupt = errors.New("the cache's entry is not what was written; dropped: run again (or with --no-cache)")

// replay hands the handler what a log's events say, as the lines did.
func (r *fileRead) replay(events []byte) error {
	d := cache.NewDecoder(events)
	er := entryReader{d: d}
	for d.Left() > 0 && d.Err() == nil {
		switch tag := d.Uvarint(); tag {
		case evWarn:
			line := int(d.Varint())
			msg := d.StrShared()
			if d.Err() == nil {
				r.warn(line, errors.New(msg))
			}
		case evEntry, evDecodeEr:
			line := int(d.Varint())
			var e *transcript.Entry
			var derr error
			if tag == evEntry {
				e = er.entry()
			} else {
				derr = errors.New(d.StrShared())
			}
			if d.Err() != nil {
				break
			}
			if err := r.take(line, e, derr); err != nil {
				return err
			}
		case evSeen:
			id := d.Str()
			h, ok := r.x.h.(joined)
			if !ok {
				d.Fail()
				break
			}
			h.joinerOf().seen[id] = struct{}{}
		default:
			d.Fail()
		}
	}
	if d.Err() != nil {
		return errLogCorrupt
	}
	return nil
}

// cached reads r's file through the cache: an unchanged file from its
// log alone, unopened; a grown one from its log and then the lines
// appended; any other (new, rewritten, shrunk, replaced, compressed) from
// the start, its log kept for the next run. A line still being written
// is read but not kept.
func (r *fileRead) cached(c *cache.Store) (readDiag, error) {
	f := r.f
	if e, ok := unchangedEntry(c, f); ok {
		if events, d, _, ok := splitLog(e.Data); ok {
			return d, r.corrupt(c, r.replay(events))
		}
	}
	fi, _ := os.Stat(f.path) // nil when it fails: the open says why
	rc, err := openTranscript(f.path)
	if err != nil {
		return readDiag{}, err
	}
	fh, ok := rc.(*os.File)
	if !ok {
		rc.Close()
		return r.whole(c, fi)
	}
	defer fh.Close()
	if fi, err = fh.Stat(); err != nil {
		return readDiag{}, err
	}
	stamp := cache.StampOf(fi)
	e, state := c.Lookup(f.path, stamp, fh)
	var events []byte
	var d readDiag
	if state != cache.Miss {
		var whole, ok bool
		if events, d, whole, ok = splitLog(e.Data); !ok || whole {
			events, d, state = nil, readDiag{}, cache.Miss
		}
	}
	from := int64(0)
	if state != cache.Miss {
		from = e.Offset
	}
	end, err := completeEnd(fh, from, stamp.Size)
	if err != nil {
		return d, fmt.Errorf("reading %s: %w", f.path, err)
	}
	if err := r.corrupt(c, r.replay(events)); err != nil {
		return d, err
	}
	if end > from {
		log := &entryLog{b: append(make([]byte, 0, len(events)+int(end-from)/4), events...), raw: r.x.keepsRaw()}
		td, err := r.section(fh, from, end, d, log)
		if err != nil || r.ferr != nil {
			return d, err
		}
		d = d.add(td)
		if tail, err := cache.TailHash(fh, end); err == nil {
			c.Put(f.path, &cache.Entry{Stamp: stamp, Offset: end, Tail: tail, Data: log.data(d, false)})
		}
	}
	if end < stamp.Size {
		// The last line, not ended yet: read, not kept.
		td, err := r.section(fh, end, stamp.Size, d, nil)
		if err != nil || r.ferr != nil {
			return d, err
		}
		d = d.add(td)
	}
	// A file cut below what was read: what was read is not the file. (An
	// unchanged file was not read: the lookup's check is enough.)
	if end != from || end != stamp.Size {
		if fi, err := fh.Stat(); err == nil && fi.Size() < stamp.Size {
			err = fmt.Errorf("%w (%d bytes read, %d left)", errShrank, stamp.Size, fi.Size())
			return d, fmt.Errorf("reading %s: %w", f.path, err)
		}
	}
	return d, nil
}

// corrupt drops the file's entry when err says it did not replay.
func (r *fileRead) corrupt(c *cache.Store, err error) error {
	if errors.Is(err, errLogCorrupt) {
		c.Delete(r.f.path)
		return fmt.Errorf("%s: %w", r.f.path, err)
	}
	return err
}

// section reads the lines of fh in [from, to), which follow d's, with
// their events given to log when it is set.
func (r *fileRead) section(fh *os.File, from, to int64, d readDiag, log *entryLog) (readDiag, error) {
	x := r.x
	if log != nil {
		if h, ok := x.h.(joined); ok {
			j := h.joinerOf()
			j.note = log.seen
			defer func() { j.note = nil }()
		}
	}
	rd := transcript.NewReader(io.NewSectionReader(fh, from, to-from), r.options(d.lines, d.sawEntry, log))
	err := rd.Each(func(l *transcript.Line) error {
		e, derr := x.decode(l)
		n := l.Number + d.lines
		if log != nil {
			log.line(n, e, derr)
		}
		return r.take(n, e, derr)
	})
	if re := (*transcript.ReadError)(nil); errors.As(err, &re) {
		err = fmt.Errorf("reading %s: %w", r.f.path, re.Err)
	}
	return diagOf(rd.Diagnostics()), err
}

// whole reads a compressed transcript from its start, its log kept for
// that exact file (which only an unchanged lookup then takes); fi is its
// stat before the read.
func (r *fileRead) whole(c *cache.Store, fi os.FileInfo) (readDiag, error) {
	x := r.x
	log := &entryLog{raw: x.keepsRaw()}
	if h, ok := x.h.(joined); ok {
		j := h.joinerOf()
		j.note = log.seen
		defer func() { j.note = nil }()
	}
	td, err := transcript.ReadFile(r.f.path, r.options(0, false, log), func(l *transcript.Line) error {
		e, derr := x.decode(l)
		log.line(l.Number, e, derr)
		return r.take(l.Number, e, derr)
	})
	d := diagOf(td)
	if err == nil && r.ferr == nil && fi != nil {
		if after, serr := os.Stat(r.f.path); serr == nil && cache.StampOf(after) == cache.StampOf(fi) {
			c.Put(r.f.path, &cache.Entry{Stamp: cache.StampOf(fi), Offset: fi.Size(), Data: log.data(d, true)})
		}
	}
	return d, err
}
