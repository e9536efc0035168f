// Package cache remembers, per transcript file, the facts a command
// already extracted from it and how far it read, so that the next run
// reads only what was appended. Transcripts are append-only: a file whose
// identity (device, inode), size, mtime and ctime are unchanged holds the
// same facts; one that grew, and still has the same bytes just before the
// offset read, holds them plus what follows; anything else (shrunk,
// rewritten, replaced) is read again from the start. The ctime is what a
// rewrite cannot keep: `cp -p` or `touch -r` set the mtime back, never
// the ctime. A file whose size is what was cached but whose stamp is not
// was rewritten in place (an append always grows it): a miss, never
// "grown".
//
// The facts are the caller's bytes: this package never interprets them,
// so a command caches per-record facts and keeps every grouping and dedup
// rule of its own. An entry only ever stops at the end of a complete line
// (the caller says where); a line still being written is not cached.
//
// Never a wrong answer: a store file that is corrupt, truncated or of
// another version is ignored (and rewritten); an entry is used only when
// its file checks out; a store is written whole to a temporary file and
// renamed over the old one, so two processes at once each see a complete
// store (the last writer wins, which costs the other a re-read at most).
// What a run changed is appended to the store instead when that is
// little (journal.go): a record per entry, its own checksum, a grown
// file's record holding only the bytes after those it keeps; a record
// cut by a crash, damaged, or made from another state of its entry than
// the one before it is not applied, so the store reads as it was before
// that run, or without that entry: a read again, never a wrong answer.
package cache

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"hash/crc64"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ccpipe/ccpipe/lib/atomicfile"
	"github.com/ccpipe/ccpipe/lib/regular"
)

// Stamp is what a stat says of a file.
type Stamp struct {
	Dev, Ino uint64
	Size     int64
	MtimeNS  int64
	// CtimeNS is the status change time: set by the kernel on every
	// write, it tells a rewrite that kept size and mtime (cp -p, touch -r).
	// Negative when the stamp is racy (see settle): -1 - the ctime.
	CtimeNS int64
}

// RacyWindow is how soon after a file's last change a stamp of it is
// racy. The kernel stamps the ctime from a clock that moves in ticks (4
// ms here; 10 ms at most on Linux): a stamp taken in the tick of the
// last change may share its ctime with a change still to come in that
// tick, which a same-size rewrite with its mtime set back would then
// hide. Git meets the same race in its index ("racily clean" entries).
const RacyWindow = 20 * time.Millisecond

// settle marks s racy when it was taken within RacyWindow of the file's
// ctime (or before it: a clock set back): Judge never calls a racy stamp
// Fresh, so facts taken then are read again (whole at the same size,
// from the offset when grown) once the tick is over. The cost is one
// re-read of a file that changed in the last few milliseconds.
func settle(s Stamp, now int64) Stamp {
	if s.CtimeNS > 0 && now-s.CtimeNS < int64(RacyWindow) {
		s.CtimeNS = -1 - s.CtimeNS
	}
	return s
}

// Racy says the stamp was taken within RacyWindow of the file's last
// change: it is never Fresh, and a dir listing kept under it could miss
// an entry added in the same tick.
func (s Stamp) Racy() bool { return s.CtimeNS < 0 }

// Same says s and t are stamps of one state of a file, whether either
// was taken racy or not: the check that a file did not change while it
// was read, from a stat before to a stat after. A read that outlasts
// RacyWindow has a racy stamp before it and a settled one after; == calls
// them different and the facts were never kept. Whether kept facts may
// be trusted later is Judge's question: keep the stamp from before, racy
// mark and all.
func (s Stamp) Same(t Stamp) bool { return s.unmarked() == t.unmarked() }

func (s Stamp) unmarked() Stamp {
	if s.CtimeNS < 0 {
		s.CtimeNS = -1 - s.CtimeNS
	}
	return s
}

// Settle waits out RacyWindow: a file written before it returns has a
// settled stamp from then on. It is for tests (and tools) that write a
// file and expect the next read of a cache to find it unchanged; every
// test waits this way, through this one function.
func Settle() { time.Sleep(RacyWindow) }

// StampOf reads a stat result (Dev, Ino and CtimeNS are 0 where the
// system has none; size and mtime still decide).
func StampOf(fi os.FileInfo) Stamp {
	s := Stamp{Size: fi.Size(), MtimeNS: fi.ModTime().UnixNano(), CtimeNS: ctimeOf(fi)}
	s.Dev, s.Ino = devIno(fi)
	return settle(s, time.Now().UnixNano())
}

// Entry is what is cached of one file.
type Entry struct {
	Stamp Stamp
	// Offset is the end of the last complete line the facts cover.
	Offset int64
	// Tail is a hash of the tailLen bytes before Offset (fewer at the
	// start of the file): a grown file is trusted only when they are
	// still there.
	Tail uint64
	// Data is the caller's encoded facts up to Offset.
	Data []byte
	used int64 // unix seconds of the last run that used it
	// seen: looked up or put in this run, so the file was there.
	seen bool
	// gen names this state of the entry: a journal record that extends
	// an entry names the gen it extends (journal.go).
	gen uint64
}

// State is what a lookup found.
type State int

const (
	// Miss: nothing usable; read the file from the start.
	Miss State = iota
	// Fresh: the file is as cached; its facts are the entry's.
	Fresh
	// Grown: the file has the cached bytes and more after Offset.
	Grown
)

// tailLen is how many bytes before the offset are hashed.
const tailLen = 256

// (Made on first use: a warm run that reads no file never needs it.)
var crcTable = sync.OnceValue(func() *crc64.Table { return crc64.MakeTable(crc64.ECMA) })

// TailHash hashes the bytes before off, as Entry.Tail.
func TailHash(r io.ReaderAt, off int64) (uint64, error) {
	if off < 0 {
		return 0, errCorrupt
	}
	start := max(off-tailLen, 0)
	buf := make([]byte, off-start)
	if _, err := r.ReadAt(buf, start); err != nil {
		return 0, err
	}
	return crc64.Checksum(buf, crcTable()), nil
}

// Stats is what --cache-stats reports of a store: its entries, the size
// of its file, and this run's lookups, each file (or dir) looked up once
// counted once: Fresh + Grown + Miss is how many were looked up.
type Stats struct {
	Path    string `json:"path"`
	Entries int    `json:"entries"`
	Bytes   int64  `json:"bytes"`
	Fresh   int    `json:"fresh"`
	Grown   int    `json:"grown"`
	Miss    int    `json:"miss"`
	Dropped int    `json:"dropped"`
	Corrupt bool   `json:"corrupt,omitempty"`
}

// Store is the cache of one kind of facts, kept in one file.
type Store struct {
	mu       sync.Mutex
	path     string
	version  string
	maxBytes int64
	entries  map[string]*Entry
	dirty    bool
	stats    Stats
	// pending holds the paths Unchanged missed that no Lookup has
	// counted yet: the caller read them whole and Put them (a compressed
	// file, a subagents dir), or gave up; each counts as a miss.
	pending map[string]struct{}
	now     int64
	// loaded is closed once the store file is read: Open reads it on a
	// goroutine of its own, so that the caller lists its files meanwhile.
	loaded chan struct{}
	// The journal (journal.go): the entries changed since the store was
	// read, to append; whole when it must be written whole instead; the
	// file as read (its identity and size) and its journal's bytes.
	ops     map[string]op
	whole   bool
	file    Stamp
	baseLen int64
	jouLen  int64
	// sealed: the store was read without its checksums (its seal).
	sealed bool
	// mapped: opened by OpenMapped; mem is then the store file's map,
	// when it could be mapped (nil: read into memory, as Open does).
	mapped bool
	mem    []byte
}

// DefaultMaxBytes bounds a store: past it, the entries used longest ago
// are dropped when it is saved.
const DefaultMaxBytes = 512 << 20

// magic opens a store; the body's length follows it as 8 bytes (the
// whole file's, checked before the rest is read).
const magic = "ccpipe-cache-4\n"

// storeCRC checks a whole store: CRC-32C, which the CPU computes (the
// table-driven CRC-64 cost a warm run more than its stats).
var storeCRC = crc32.MakeTable(crc32.Castagnoli)

// Open reads the store name in dir (its file: File(dir, name, ".cache")).
// version names the facts' format (and anything else they depend on); the
// store's version is that and the build's (Version): a store of another
// version is ignored. A missing, unreadable or corrupt store is an empty
// one.
func Open(dir, name, version string) *Store { return open(dir, name, version, false) }

// OpenMapped is Open for a caller that reads its entries' Data only
// through Store.Data: the store file is mapped, not read (a warm run of
// a large store spent most of its time having the kernel zero pages and
// copy the file into them), and each entry's bytes are copied out of the
// map when asked for. Only what ccpipe writes, by rename or by append,
// is assumed of the file: another program that cuts it shorter while a
// run maps it makes the pages past its new end fault, which Data, the
// load and Save turn into a miss, an empty store and no save (map.go).
func OpenMapped(dir, name, version string) *Store { return open(dir, name, version, true) }

func open(dir, name, version string, mapped bool) *Store {
	s := &Store{path: File(dir, name, ".cache"), version: Version(version), maxBytes: DefaultMaxBytes,
		entries: map[string]*Entry{}, now: time.Now().Unix(), loaded: make(chan struct{}), mapped: mapped}
	s.stats.Path = s.path
	go s.load()
	return s
}

func (s *Store) load() {
	defer close(s.loaded)
	s.whole = true // until a store is read that can be appended to
	b, file, mem, err := readStore(s.path, s.mapped)
	if err != nil {
		// Missing: an empty store. Anything else (a link, a FIFO, a
		// length that is not the file's) is replaced at the next save.
		if !errors.Is(err, fs.ErrNotExist) {
			s.stats.Corrupt = !errors.Is(err, errVersion)
			s.dirty = true
		}
		return
	}
	if mem {
		s.mem = b
		runtime.AddCleanup(s, unmapFile, b)
		defer s.guarded(debug.SetPanicOnFault(true), func() {
			// Cut shorter while read: an empty store, written whole at the
			// next save.
			s.entries, s.stats.Corrupt, s.dirty = map[string]*Entry{}, true, true
		})
	}
	base := b[:binary.LittleEndian.Uint64(b[len(magic):])]
	sealed := readSeal(s.path) == file && !file.Racy()
	s.sealed = sealed
	entries, err := decode(base, s.version, sealed, mem)
	if err != nil {
		s.stats.Corrupt = !errors.Is(err, errVersion)
		s.dirty = true // rewritten at the next save
		return
	}
	s.entries = entries
	s.file, s.baseLen, s.jouLen = file, int64(len(base)), int64(len(b)-len(base))
	// A journal that does not read to its end (a crash cut its last
	// record) is applied up to there; the store is then written whole.
	s.whole = !applyJournal(entries, b[len(base):], sealed, mem)
	if !sealed && !s.whole && !file.Racy() {
		writeSeal(s.path, file) // checked whole: the next run need not
	}
}

// The seal (a small file beside a store, its name the store's and
// ".seal"): the stamp of a store file as it was when a run checked every
// byte of it (its checksum and its journal's), taken before it read it.
// A run that finds the store with that stamp, settled, reads it without
// the checksums: a store changes only by a write, which moves its ctime
// (and a stamp taken in the tick of a change is racy, never sealed), so
// the bytes are the ones checked. A warm run read every byte of its store
// to check it, most of its time for the larger kinds (tools: 50 MB). Any
// other store (written since, damaged, replaced, no seal or a seal that
// does not read) is checked whole, as before, and sealed then.
const sealMagic = "ccpipe-seal-1\n"

// readSeal returns the stamp a store's seal holds, the zero stamp when
// there is none that reads.
func readSeal(path string) Stamp {
	b, err := ReadFile(path+".seal", 256)
	if err != nil || len(b) < len(sealMagic)+4 || string(b[:len(sealMagic)]) != sealMagic {
		return Stamp{}
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, storeCRC) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return Stamp{}
	}
	d := Decoder{b: body[len(sealMagic):]}
	st := d.Stamp()
	if d.Err() != nil || len(d.b) != 0 || st.Racy() {
		return Stamp{}
	}
	return st
}

// writeSeal seals the store at path as checked with stamp st. Not
// written, it costs the next run the check.
func writeSeal(path string, st Stamp) {
	b := AppendStamp([]byte(sealMagic), st)
	_ = WriteFile(path+".seal", binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, storeCRC)))
}

// maxStore bounds a store file read: a store is saved under its size
// bound (DefaultMaxBytes, give or take an entry), so one far past it was
// not written by ccpipe and is never read into memory.
const maxStore = 2 * DefaultMaxBytes

// readStore reads the store file whole, into memory backed at once, or
// with mapped maps it (mem says it did; a file that cannot be mapped is
// read). The store is ccpipe's own file: a symlink there is not followed and a FIFO
// or device is not opened for good (lib/regular.OpenOwned), and the
// header's length is checked against the file's size and maxStore before
// anything is allocated: a store that is not what was written (an 8 GB
// sparse file) costs a stat, and is replaced at the next save.
func readStore(path string, mapped bool) (b []byte, st Stamp, mem bool, err error) {
	f, err := regular.OpenOwned(path)
	if err != nil {
		return nil, Stamp{}, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, Stamp{}, false, err
	}
	var head [len(magic) + 8]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return nil, Stamp{}, false, errCorrupt
	}
	if v := head[len(magic)-2]; string(head[:len(magic)]) != magic && bytes.HasPrefix(head[:], []byte(magic[:len(magic)-2])) &&
		v >= '0' && v <= '9' && head[len(magic)-1] == '\n' {
		return nil, Stamp{}, false, errVersion // a store of another ccpipe: replaced, not "corrupt"
	}
	// The length is the whole store's but for its journal (journal.go).
	claimed := binary.LittleEndian.Uint64(head[len(magic):])
	if string(head[:len(magic)]) != magic || claimed > uint64(fi.Size()) || claimed < uint64(len(head)) || fi.Size() > maxStore {
		return nil, Stamp{}, false, errCorrupt
	}
	if mapped {
		if m, err := mapFile(f, fi.Size()); err == nil {
			// The head checked is the one mapped: the file was not
			// written in place between (ccpipe never does).
			if !bytes.Equal(m[:len(head)], head[:]) {
				unmapFile(m)
				return nil, Stamp{}, false, errCorrupt
			}
			return m, StampOf(fi), true, nil
		}
	}
	// A large allocation starts on a page, as madvise wants.
	b = make([]byte, fi.Size())
	populate(b)
	copy(b, head[:])
	if _, err := io.ReadFull(f, b[len(head):]); err != nil {
		return nil, Stamp{}, false, errCorrupt
	}
	return b, StampOf(fi), false, nil
}

// wait returns once the store file is read; every method but Open calls
// it first.
func (s *Store) wait() { <-s.loaded }

// SetMaxBytes changes the size bound (DefaultMaxBytes).
func (s *Store) SetMaxBytes(n int64) {
	s.wait()
	s.maxBytes = n
}

// Lookup finds the entry of the file at path, checking it against the
// file: st is the file's stamp, and r (nil for a file that cannot be
// read at an offset: then only an unchanged stamp is trusted) reads the
// bytes before the entry's offset. The entry returned must not be
// changed; Put a new one.
func (s *Store) Lookup(path string, st Stamp, r io.ReaderAt) (*Entry, State) {
	s.wait()
	s.mu.Lock()
	e := s.entries[path]
	s.mu.Unlock()
	state := s.check(e, st, r)
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pending, path) // counted here, once
	switch state {
	case Fresh:
		s.stats.Fresh++
	case Grown:
		s.stats.Grown++
	default:
		s.stats.Miss++
	}
	if e != nil {
		e.seen = true
		if state != Miss {
			e.used = s.now
		}
	}
	return e, state
}

// Unchanged returns the entry of the file at path when the file is as
// cached to the nanosecond (device, inode, size, mtime) and the entry
// covers it whole, without reading the file: a warm run then costs a stat
// per file. It counts a fresh lookup when it finds one; a miss counts
// once, here or by the Lookup that follows it.
func (s *Store) Unchanged(path string, st Stamp) (*Entry, bool) {
	s.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[path]
	if e == nil || Judge(e.Stamp, e.Offset, st) != Fresh || e.Offset != st.Size {
		if s.pending == nil {
			s.pending = map[string]struct{}{}
		}
		s.pending[path] = struct{}{}
		return nil, false
	}
	e.used, e.seen = s.now, true
	s.stats.Fresh++
	return e, true
}

// Judge is ccpipe's one rule of file identity, which every cache, the
// usage ledgers and the archive's sidecar follow: a file whose facts were
// taken at stamp old, up to offset, is now (stamp now) Fresh when the
// whole stamp is the same (device, inode, size, mtime, ctime); Grown when
// it is the same file (device, inode) grown past the size it had, or
// past offset when old.Size is -1 (read partly: the caller goes on from
// offset); a Miss otherwise: shrunk, replaced, or rewritten in place,
// which a size kept and an mtime set back (cp -p, touch -r) cannot hide,
// as the ctime moves on, or, within the ctime's tick, a racy stamp
// (settle) was taken. Grown is only a candidate: the caller checks the
// bytes before offset (TailHash) before reading on.
func Judge(old Stamp, offset int64, now Stamp) State {
	if old.Dev != now.Dev || old.Ino != now.Ino || offset < 0 || offset > now.Size {
		return Miss
	}
	if old == now && !old.Racy() {
		return Fresh // a racy stamp (settle) never is: the file may have changed in its ctime's tick
	}
	if old.Size != -1 && (now.Size <= old.Size || offset > old.Size) {
		return Miss // the same size, another stamp: rewritten in place
	}
	return Grown
}

func (s *Store) check(e *Entry, st Stamp, r io.ReaderAt) State {
	if e == nil || e.Offset > e.Stamp.Size {
		return Miss
	}
	state := Judge(e.Stamp, e.Offset, st)
	if state == Miss || (r == nil && state == Grown) {
		return Miss
	}
	if r == nil {
		return Fresh
	}
	if e.Offset > 0 {
		h, err := TailHash(r, e.Offset)
		if err != nil || h != e.Tail {
			return Miss
		}
	}
	return state
}

// Put stores the entry of the file at path (replacing any).
func (s *Store) Put(path string, e *Entry) { s.Extend(path, e, 0) }

// Extend is Put of an entry whose Data's first keep bytes are those of
// the entry it replaces (a grown file's facts): only the rest is written
// to the store's journal. A keep the old entry cannot have is a Put.
func (s *Store) Extend(path string, e *Entry, keep int) {
	s.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	e.used, e.seen, e.gen = s.now, true, newGen()
	old := s.entries[path]
	o, changed := s.ops[path]
	if !changed {
		o = op{keep: keep}
		if old != nil {
			o.prev = old.gen
		}
	}
	if old == nil || keep > len(old.Data) || keep > len(e.Data) || keep < 0 {
		keep = 0
	}
	o.keep = min(o.keep, keep)
	if s.ops == nil {
		s.ops = map[string]op{}
	}
	s.ops[path] = o
	s.entries[path] = e
	s.dirty = true
}

// Each calls fn for every entry, in no set order; fn must not change the
// entry nor call the store.
func (s *Store) Each(fn func(path string, e *Entry)) {
	s.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, e := range s.entries {
		fn(p, e)
	}
}

// Delete drops the entry of path.
func (s *Store) Delete(path string) {
	s.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.entries[path]; ok {
		delete(s.entries, path)
		s.dirty, s.whole = true, true
	}
}

// Save writes the store back if it changed: entries of files that are
// gone are dropped, then the oldest-used past the size bound. A store
// that cannot be written only costs a full read next time: the error is
// returned for the caller to report or not.
func (s *Store) Save() (err error) {
	s.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mem != nil {
		// A store cut shorter meanwhile is not written from its map.
		defer s.guarded(debug.SetPanicOnFault(true), func() { err = ErrCut })
	}
	for p, e := range s.entries {
		if e.seen {
			continue // looked up or put in this run: the file was there
		}
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			delete(s.entries, p)
			s.stats.Dropped++
			s.dirty, s.whole = true, true
		}
	}
	s.bound()
	if !s.dirty {
		return nil
	}
	if s.appendJournal() {
		s.dirty, s.ops = false, nil
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	if err := WriteFile(s.path, encode(s.entries, s.version)); err != nil {
		return err
	}
	s.dirty, s.ops = false, nil
	return nil
}

// SaveChanged is Save when this run changed the store (put, deleted, or
// found it damaged): a store this run only looked up is left as it is,
// without the stat per entry not looked up that Save spends to drop the
// entries of files gone since (a run that looks up a few of many files
// then costs nothing more). Those entries are dropped by the next run
// that writes the store; until then they only take room, never answer
// (an entry is used only when its file checks out).
func (s *Store) SaveChanged() error {
	s.wait()
	s.mu.Lock()
	dirty := s.dirty
	s.mu.Unlock()
	if !dirty {
		return nil
	}
	return s.Save()
}

// Changed reports whether SaveChanged would write the store: an entry
// was put or deleted, or the file read was damaged or of another
// version.
func (s *Store) Changed() bool {
	s.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dirty
}

// size is an entry's share of the store file, roughly.
func size(path string, e *Entry) int64 { return int64(len(path)+len(e.Data)) + 64 }

// bound drops the entries used longest ago until the store fits.
func (s *Store) bound() {
	var total int64
	paths := make([]string, 0, len(s.entries))
	for p, e := range s.entries {
		total += size(p, e)
		paths = append(paths, p)
	}
	if total <= s.maxBytes {
		return
	}
	sort.Slice(paths, func(i, j int) bool {
		a, b := s.entries[paths[i]], s.entries[paths[j]]
		if a.used != b.used {
			return a.used < b.used
		}
		return paths[i] < paths[j]
	})
	for _, p := range paths {
		if total <= s.maxBytes {
			break
		}
		total -= size(p, s.entries[p])
		delete(s.entries, p)
		s.stats.Dropped++
		s.dirty, s.whole = true, true
	}
}

// Stats reports the store's entries, its file's size as ls -l shows it
// (0 before it is first saved) and this run's lookups.
func (s *Store) Stats() Stats {
	s.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Miss += len(s.pending)
	st.Entries = len(s.entries)
	if fi, err := os.Lstat(s.path); err == nil {
		st.Bytes = fi.Size()
	}
	return st
}

// WriteFile is the one place ccpipe's caches write a file: whole, through
// lib/atomicfile (a temporary file, synced, renamed over the old one), so
// that a reader never sees a half-written one and a full disk leaves no
// temporary file behind. The cache dir is ccpipe's own: whatever is at
// path (a symlink planted there, a FIFO) is replaced, never followed.
func WriteFile(path string, b []byte) error {
	return atomicfile.WriteFileOwned(path, b, 0o600)
}

// OpenFile opens a file of a cache's own for reading (a segment of an
// index): a regular file, a symlink not followed, a FIFO not opened for
// good (lib/regular.OpenOwned).
func OpenFile(path string) (*os.File, error) { return regular.OpenOwned(path) }

// ReadFile is the one place ccpipe's caches read a small file of their
// own (not a store): a regular file of at most limit bytes, a symlink not
// followed, a FIFO not opened for good.
func ReadFile(path string, limit int64) ([]byte, error) {
	return regular.ReadFileOwned(path, limit)
}

var (
	errCorrupt = errors.New("cache: corrupt store")
	errVersion = errors.New("cache: another version")
)

// The store file: magic, its length (the journal after it not counted),
// version, entry count, then per entry its path, stamp, offset, tail
// hash, last use, gen and data; a CRC-32C of all that before it ends, so
// that a truncated or damaged file is never read; then the journal.
func encode(entries map[string]*Entry, version string) []byte {
	// One allocation of the whole size: grown by append, the copies of a
	// store of megabytes were much of a run that saved it.
	n := len(magic) + len(version) + 16
	for p, e := range entries {
		n += int(size(p, e))
	}
	b := append(make([]byte, 0, n), magic...)
	b = binary.LittleEndian.AppendUint64(b, 0) // the length, set below
	b = putStr(b, version)
	b = binary.AppendUvarint(b, uint64(len(entries)))
	paths := make([]string, 0, len(entries))
	for p := range entries {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		e := entries[p]
		b = putStr(b, p)
		b = AppendStamp(b, e.Stamp)
		b = binary.AppendVarint(b, e.Offset)
		b = binary.LittleEndian.AppendUint64(b, e.Tail)
		b = binary.AppendVarint(b, e.used)
		b = binary.LittleEndian.AppendUint64(b, e.gen)
		b = binary.AppendUvarint(b, uint64(len(e.Data)))
		b = append(b, e.Data...)
	}
	binary.LittleEndian.PutUint64(b[len(magic):], uint64(len(b)+4))
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, storeCRC))
}

// minEntry is the fewest bytes an entry takes in a store file: a path
// and a data length of one byte each, a stamp of five varints, an offset,
// a tail hash, a last use and a gen.
const minEntry = 1 + 5 + 1 + 8 + 1 + 8 + 1

// decode reads a store's entries; sealed, without its checksum (the
// bytes are those a run checked: see the seal).
// With ownKeys the paths are copied (a mapped store's: a key is read by
// every lookup, on any goroutine, where a fault is not recovered).
func decode(b []byte, version string, sealed, ownKeys bool) (map[string]*Entry, error) {
	if len(b) < len(magic)+12 || !bytes.HasPrefix(b, []byte(magic)) || binary.LittleEndian.Uint64(b[len(magic):]) != uint64(len(b)) {
		return nil, errCorrupt
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if !sealed && crc32.Checksum(body, storeCRC) != sum {
		return nil, errCorrupt
	}
	d := Decoder{b: body[len(magic)+8:]}
	if d.Str() != version {
		if d.Err() != nil {
			return nil, errCorrupt
		}
		return nil, errVersion
	}
	n := d.Count()
	entries := make(map[string]*Entry, n)
	// The entries are allocated together (a warm run decodes thousands):
	// as many as the bytes left can hold at the least an entry takes.
	slab := make([]Entry, min(n, d.Left()/minEntry))
	for i := 0; i < n && d.Err() == nil; i++ {
		p := d.StrShared() // b is never changed: keys and data share it
		if ownKeys {
			p = strings.Clone(p)
		}
		e := &Entry{}
		if i < len(slab) {
			e = &slab[i]
		}
		e.Stamp = d.Stamp()
		e.Offset = d.Varint()
		e.Tail = d.U64()
		e.used = d.Varint()
		e.gen = d.U64()
		e.Data = d.Bytes()
		// A checksum says the bytes are whole, not that they are sane: an
		// entry whose offset is before its file is refused here, one past
		// its size is a miss in check (a caller may keep a size of -1 for
		// "not read to the end").
		if e.Offset < 0 {
			d.Fail()
		}
		entries[p] = e
	}
	if d.Err() != nil || len(d.b) != 0 {
		return nil, errCorrupt
	}
	return entries, nil
}

// SaveReport writes the store back at a command's end and, with stats
// (--cache-stats), reports through warn its size and the run's use of it.
// A store that cannot be written only costs a full read next time: that
// is said under stats only. A nil store is the cache turned off.
func (s *Store) SaveReport(stats bool, warn func(format string, a ...any)) {
	if s == nil {
		if stats {
			warn("cache: off")
		}
		return
	}
	serr := s.Save()
	if !stats {
		return
	}
	st := s.Stats()
	warn("cache: %s: %d bytes, %d entries; this run looked up %d: %d unchanged, %d grown, %d read whole; %d dropped",
		st.Path, st.Bytes, st.Entries, st.Fresh+st.Grown+st.Miss, st.Fresh, st.Grown, st.Miss, st.Dropped)
	if st.Corrupt {
		warn("cache: the store was damaged and was rebuilt")
	}
	if serr != nil {
		warn("cache: not saved: %v", serr)
	}
}

// Seen counts the entry of path as looked up in this run, as Unchanged
// finding it does, for a caller that checked the file by other means (a
// stat against a stamp it kept): Save then keeps it without a stat.
func (s *Store) Seen(path string) {
	s.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.entries[path]; e != nil {
		e.used, e.seen = s.now, true
	}
}
