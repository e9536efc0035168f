package otel

import (
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/mapped"
)

// Pieces: a session's events kept marshalled, so that a warm run sends
// them without building pdata. Protobuf's rule that serialized messages
// concatenated are one message with their repeated fields appended (the
// OTLP request's one field, resource_logs or resource_metrics, is
// repeated) lets a request body be the concatenation of requests that
// pdata marshalled, each of a chunk of one session's events: nothing here
// writes a tag or a length. The collector decodes such a body to the
// records of the pdata request of the same events, each chunk under a
// resource of its own (TestConcatenatedRequests, TestPiecesAreBuilt).
//
// A session's events of each signal (log events; events with metric
// points) are cut into chunks of Pieces.Chunk, each marshalled as the
// OTLP request of its events as they are sent when the whole session is:
// numbered from 0 in transcript order, with the session's user.id, the
// run's resource. The exporter sends a chunk's bytes when all its events
// go, in one request (the requests are cut as before, at BatchSize
// events); the rest it builds as before.
//
// The bytes are kept beside the event cache's store, in segment files of
// their own (a run writes one; the store would be read whole, its
// checksum computed, at every run): the session's record names its
// segment, where its bytes start, and each chunk's length and CRC-32C. A
// chunk is read into the request body and checked there; one that does
// not read back as it was written is built again from the record's
// events (never a wrong byte sent). A run's segment is synced to disk
// before the store that names it is saved. A segment no entry names is
// removed once it is an hour old (a run at the same time may be about to
// name its own).

// Pieces is where sessions' pieces are kept, and what they are built
// with: the resource, the chunk. Only a protobuf export (http/protobuf, grpc) uses them.
type Pieces struct {
	Resource Resource
	Chunk    int
	dir      string
	mu       sync.Mutex
	w        *segment // this run's, made on the first write
	wfailed  bool
	open     map[string]*segment
	// damaged are the sessions of which a chunk did not read back, by
	// their main transcript's path: RepairPieces builds their pieces
	// again (bad is how many chunks).
	damaged []damage
	bad     int
}

// damage is a session whose pieces do not all read back.
type damage struct{ path, uid string }

// segment is a file of pieces. One that is read is mapped whole on its
// first read (lib/mapped: a file cut shorter meanwhile is an error, not
// a crash), so that a chunk is copied into a request body from the page
// cache with no system call; where it cannot be mapped it is read with
// pread, a chunk at a time. Only the delivering goroutine reads (maps)
// it.
type segment struct {
	name    string
	f       *os.File
	size    int64
	win     *mapped.Windows
	mem     []byte
	mapFail bool
}

// mapped is the segment's bytes mapped (nil: it cannot be).
func (s *segment) mapped() []byte {
	if s.mem == nil && !s.mapFail && s.size > 0 {
		s.win = mapped.New(s.f.Fd(), s.size, mapped.Options{})
		m, err := s.win.Range(0, s.size)
		if err != nil {
			_ = s.win.Close()
			s.win, s.mapFail = nil, true
			return nil
		}
		s.mem = m
	}
	return s.mem
}

// close unmaps and closes the segment.
func (s *segment) close() {
	if s.win != nil {
		_ = s.win.Close()
		s.win, s.mem = nil, nil
	}
	s.f.Close()
}

// segSuffix names a segment file.
const segSuffix = ".pieces"

// maxPiece bounds a chunk's bytes as a record names them: far past what
// a chunk of events takes.
const maxPiece = 1 << 30

// segmentAge is how old a segment no entry names must be to be removed.
const segmentAge = time.Hour

// PiecesDir is the dir of the pieces of the event cache in cacheDir.
func PiecesDir(cacheDir string) string {
	return cache.File(cacheDir, EventCacheName, ".pieces")
}

// NewPieces keeps pieces in dir (made when first written).
func NewPieces(dir string, res Resource, chunk int) *Pieces {
	return &Pieces{Resource: res, Chunk: chunk, dir: dir, open: map[string]*segment{}}
}

// ChunkFor is the chunk of pieces for requests of size events: small
// enough that the chunk a request's cut falls in (built with pdata) is a
// small part of a request.
func ChunkFor(size int) int { return max(1, size/32) }

// pieces are the marshalled chunks of a session's events, per signal.
type pieces struct {
	fp    uint64
	chunk int
	sig   [2][]piece // logs, metrics
	// seg and base say where the chunks were written, one after the
	// other ("": nowhere, they are only in memory).
	seg  string
	base int64
	// path and uid are the session's, for pieces read from a segment:
	// one that does not read back is noted (once) under them.
	path, uid string
	noted     bool
}

// piece is one chunk: its bytes when built in this run, else where they
// are, and the session's pieces it is one of.
type piece struct {
	b   []byte
	seg *segment
	off int64
	n   int
	crc uint32
	of  *pieces
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// signals are the signals in the order of pieces.sig.
var signals = [2]Signal{Logs, Metrics}

// sigIndex is s's index in pieces.sig.
func sigIndex(s Signal) int {
	if s == Metrics {
		return 1
	}
	return 0
}

// member says e goes to signal s.
func member(s Signal, e *Event) bool {
	if s == Metrics {
		return hasPoints(e)
	}
	return !e.SessionStart()
}

// fingerprint names what a session's pieces are built with: the
// resource, its user.id and the chunk.
func (ps *Pieces) fingerprint(uid string) uint64 {
	h := fnv.New64a()
	w := func(s string) { _, _ = h.Write([]byte(s)); _, _ = h.Write([]byte{0}) }
	w(ps.Resource.HostArch)
	w(ps.Resource.OSType)
	w(strconv.Itoa(len(ps.Resource.Extra)))
	for _, kv := range ps.Resource.Extra {
		w(kv[0])
		w(kv[1])
	}
	w(uid)
	w(strconv.Itoa(ps.Chunk))
	return h.Sum64()
}

// build marshals the chunks of events, numbered as send numbers them
// when none is left out, with user.id uid, and writes them to this run's
// segment (when it can: else they are kept for this run only).
func (ps *Pieces) build(events []Event, uid string) (*pieces, error) {
	p := &pieces{fp: ps.fingerprint(uid), chunk: ps.Chunk}
	b := newBatch(ps.Resource)
	var all [][]byte
	for si, s := range signals {
		n := 0
		flush := func() error {
			if n == 0 {
				return nil
			}
			body, err := b.marshal(s)
			if err != nil {
				return err
			}
			p.sig[si] = append(p.sig[si], piece{b: body, n: len(body), crc: crc32.Checksum(body, castagnoli)})
			all = append(all, body)
			n = 0
			return nil
		}
		for i := range events {
			events[i].complete()
			e := events[i] // a copy: numbered here, not in the record
			if !member(s, &e) {
				continue
			}
			e.Seq, e.UserID = int64(i), uid
			b.add(s, &e)
			if n++; n == ps.Chunk {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
		if err := flush(); err != nil {
			return nil, err
		}
	}
	p.seg, p.base = ps.write(all)
	return p, nil
}

// write appends bufs to this run's segment: its name and where they
// start, or "" when they could not be written.
func (ps *Pieces) write(bufs [][]byte) (string, int64) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.wfailed {
		return "", 0
	}
	if ps.w == nil {
		if err := os.MkdirAll(ps.dir, 0o700); err != nil {
			ps.wfailed = true
			return "", 0
		}
		name := fmt.Sprintf("%020d-%d%s", time.Now().UnixNano(), os.Getpid(), segSuffix)
		f, err := os.OpenFile(filepath.Join(ps.dir, name), os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			ps.wfailed = true
			return "", 0
		}
		ps.w = &segment{name: name, f: f}
		ps.open[name] = ps.w
	}
	w := ps.w
	base := w.size
	for _, b := range bufs {
		n, err := w.f.WriteAt(b, w.size)
		w.size += int64(n)
		if err != nil {
			// What was written of this session is never named.
			ps.wfailed = true
			return "", 0
		}
	}
	return w.name, base
}

// segment opens the segment name for reading (once); nil when it cannot.
func (ps *Pieces) segment(name string) *segment {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if s, ok := ps.open[name]; ok {
		return s
	}
	var s *segment
	if !strings.ContainsRune(name, filepath.Separator) && strings.HasSuffix(name, segSuffix) {
		if f, err := cache.OpenFile(filepath.Join(ps.dir, name)); err == nil {
			if fi, err := f.Stat(); err == nil {
				s = &segment{name: name, f: f, size: fi.Size()}
			} else {
				f.Close()
			}
		}
	}
	ps.open[name] = s
	return s
}

// usable says the pieces were built for this run and uid, and can be
// read.
func (p *pieces) usable(ps *Pieces, uid string) bool {
	return p != nil && ps != nil && p.chunk == ps.Chunk && p.fp == ps.fingerprint(uid)
}

// locate points a decoded record's pieces into their segment: false when
// it is not there (removed, or shorter than they need).
func (p *pieces) locate(ps *Pieces) bool {
	s := ps.segment(p.seg)
	if s == nil {
		return false
	}
	off := p.base
	for si := range p.sig {
		for i := range p.sig[si] {
			pc := &p.sig[si][i]
			pc.seg, pc.off, pc.of = s, off, p
			off += int64(pc.n)
		}
	}
	return off <= s.size
}

// bad notes that pc did not read back: its session's pieces are built
// again by RepairPieces. Called by the delivering goroutine.
func (ps *Pieces) noteBad(pc *piece) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.bad++
	if p := pc.of; p != nil && !p.noted && p.path != "" {
		p.noted = true
		ps.damaged = append(ps.damaged, damage{p.path, p.uid})
	}
}

// Bad is how many chunks did not read back in this run (built with
// pdata instead, and their sessions' pieces built again).
func (ps *Pieces) Bad() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.bad
}

// size is how many bytes the chunks take in their segment.
func (p *pieces) size() int64 {
	var n int64
	for si := range p.sig {
		for _, pc := range p.sig[si] {
			n += int64(pc.n)
		}
	}
	return n
}

// appendTo appends the piece's bytes to body: false when they do not read
// back as they were written (body is then as it was).
func (pc *piece) appendTo(body []byte) ([]byte, bool) {
	if pc.b != nil {
		return append(body, pc.b...), true
	}
	if pc.seg == nil {
		return body, false
	}
	start := len(body)
	if m := pc.seg.mapped(); m != nil {
		if pc.off+int64(pc.n) > int64(len(m)) {
			return body, false
		}
		src := m[pc.off : pc.off+int64(pc.n)]
		// Copied, then checked: what is sent is what was checked.
		err := pc.seg.win.Guard(func() error { body = append(body, src...); return nil })
		if err != nil || crc32.Checksum(body[start:], castagnoli) != pc.crc {
			return body[:start], false
		}
		return body, true
	}
	body = slices.Grow(body, pc.n)[:start+pc.n]
	if _, err := pc.seg.f.ReadAt(body[start:], pc.off); err != nil || crc32.Checksum(body[start:], castagnoli) != pc.crc {
		return body[:start], false
	}
	return body, true
}

// Close moves the live pieces out of the segments that are mostly dead
// (compact), syncs this run's segment, so that it is on disk before the
// store that names it, removes the segments no entry of store names that
// are old enough, and closes every segment.
func (ps *Pieces) Close(store *cache.Store) error {
	if store != nil {
		ps.compact(store)
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var err error
	if ps.w != nil {
		err = ps.w.f.Sync()
	}
	for _, s := range ps.open {
		if s != nil {
			s.close()
		}
	}
	ps.open = map[string]*segment{}
	if store == nil {
		return err
	}
	named := map[string]bool{}
	if ps.w != nil {
		named[ps.w.name] = true
	}
	store.Each(func(_ string, e *cache.Entry) {
		if seg, _, ok := segmentOf(e.Data); ok && seg != "" {
			named[seg] = true
		}
	})
	ents, rerr := os.ReadDir(ps.dir)
	if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		return errors.Join(err, rerr)
	}
	for _, de := range ents {
		if named[de.Name()] || !strings.HasSuffix(de.Name(), segSuffix) {
			continue
		}
		if fi, ierr := de.Info(); ierr == nil && time.Since(fi.ModTime()) > segmentAge {
			_ = os.Remove(filepath.Join(ps.dir, de.Name()))
		}
	}
	return err
}

// Compaction: a session whose files changed is read again and its pieces
// written to the run's segment; the bytes it had in an older segment are
// dead, and that segment stays while any other session's pieces are in
// it (under cron, most segments). So at the end of a run, a segment other
// than the run's whose entries name less than half its bytes has their
// pieces copied into the run's segment (each chunk checked: one that does
// not read back leaves its session without pieces, built again by the
// next run) and the entries stored again naming it; the segment, named by
// none, is removed once an hour old. The bytes kept are then at most
// twice the live ones, plus the last hour's segments.

// compact moves the live pieces of the mostly dead segments into this
// run's (see above).
func (ps *Pieces) compact(store *cache.Store) {
	type use struct {
		live  int64
		paths []string
		ents  []*cache.Entry
	}
	uses := map[string]*use{}
	store.Each(func(path string, e *cache.Entry) {
		if seg, n, ok := segmentOf(e.Data); ok && seg != "" {
			u := uses[seg]
			if u == nil {
				u = &use{}
				uses[seg] = u
			}
			u.live += n
			u.paths, u.ents = append(u.paths, path), append(u.ents, e)
		}
	})
	for seg, u := range uses {
		if ps.w != nil && seg == ps.w.name {
			continue
		}
		fi, err := os.Stat(filepath.Join(ps.dir, seg))
		if err != nil || u.live*2 >= fi.Size() {
			continue
		}
		s := ps.segment(seg)
		if s == nil {
			continue
		}
		for i, e := range u.ents {
			if !ps.move(store, u.paths[i], e, s) {
				return
			}
		}
	}
}

// move copies the pieces of the entry at path from segment s into this
// run's segment and stores the entry again naming it; false when this
// run's segment cannot be written.
func (ps *Pieces) move(store *cache.Store, path string, e *cache.Entry, s *segment) bool {
	rec := &record{}
	snap, ok := rec.decode(e.Data, &replayBuf{})
	p := rec.pieces
	if !ok || p == nil {
		return true
	}
	snap.main = e.Stamp
	buf := make([]byte, p.size())
	if _, err := s.f.ReadAt(buf, p.base); err == nil && p.check(buf) {
		name, base := ps.write([][]byte{buf})
		if name == "" {
			return false
		}
		p.seg, p.base = name, base
	} else {
		rec.pieces = nil // built again by the session's next run
	}
	store.Put(path, &cache.Entry{Stamp: e.Stamp, Offset: e.Offset, Data: rec.encode(&snap)})
	return true
}

// check says b holds the chunks as written (each one's CRC-32C).
func (p *pieces) check(b []byte) bool {
	for si := range p.sig {
		for _, pc := range p.sig[si] {
			if len(b) < pc.n || crc32.Checksum(b[:pc.n], castagnoli) != pc.crc {
				return false
			}
			b = b[pc.n:]
		}
	}
	return len(b) == 0
}

// add appends e's log event or metric points to b.
func (b *batch) add(s Signal, e *Event) {
	if s == Metrics {
		b.addPoints(e)
	} else {
		b.addLog(e)
	}
}

// marshal returns the protobuf request of b's events of signal s, and
// empties them.
func (b *batch) marshal(s Signal) ([]byte, error) {
	if s == Metrics {
		body, err := pmetricotlp.NewExportRequestFromMetrics(b.metrics).MarshalProto()
		b.resetMetrics()
		return body, err
	}
	body, err := plogotlp.NewExportRequestFromLogs(b.logs).MarshalProto()
	b.resetLogs()
	return body, err
}
