package otel

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ccpipe/ccpipe/lib/atomicfile"
)

// The ledger: what a destination has acknowledged, so that each event is
// sent to it once. It is a dir per destination (the signal's endpoint URL
// and protocol, hashed) under the cache dir, holding segment files of
// 16-byte keys. A run adds one segment, made new (never a file that was
// there) and appended to with one write per acknowledged request, only
// after the collector acknowledged it; a short write (a full disk) is cut
// back off. A killed run keeps what it wrote (the kernel has it); it is
// synced to disk at least once a second and at the end, so only a machine
// that loses power can forget the last second's acknowledgements (those
// events are sent again: at least once, never lost). A segment cut inside
// a key (that power loss) is read up to its last whole key. A crash
// between the acknowledgement and the write leaves the request's events
// unmarked: they are sent again by the next run.
// A lock file keeps two runs from sending the same events at once.

// Key identifies one event of one signal.
type Key [16]byte

// KeyOf is the key of event e in signal s. A user_prompt is its
// message's uuid alone: a fork (--fork-session) copies the prompts of the
// session it forks with their uuids under its own session id, and a prompt
// was typed once (observed with 2.1.328's forks, testdata/corpus-fork).
func KeyOf(s Signal, e *Event) Key {
	var k keyer
	return k.key(s, e)
}

// keyer computes keys with one hash and buffer, reused (an export asks
// for two keys an event).
type keyer struct {
	h   hash.Hash
	buf []byte
}

func (kr *keyer) key(s Signal, e *Event) Key {
	if e.hasKeys {
		return e.keys[sigIndex(s)]
	}
	if kr.h == nil {
		kr.h = fnv.New128a()
	}
	b := append(kr.buf[:0], s...)
	b = append(b, 0)
	if e.Name != EventUserPrompt {
		b = append(b, e.SessionID...)
	}
	b = append(b, 0)
	b = append(b, e.Name...)
	b = append(b, 0)
	b = append(b, e.ID...)
	kr.buf = b
	kr.h.Reset()
	kr.h.Write(b)
	var k Key
	kr.h.Sum(k[:0])
	return k
}

// Ledger is the acknowledged keys of one destination.
type Ledger struct {
	dir string
	// keys is what was read when the ledger was opened, never changed
	// after; added is what was marked since (a run marks an event once,
	// one the ledger had not), guarded by mu: an export checks keys while
	// its delivering goroutine marks what was acknowledged.
	keys map[Key]struct{}
	// sorted are the keys of the merged segment (Compact's), in order:
	// looked up by binary search, never put in keys (a ledger of a
	// million events is not a million map inserts at every run). keys
	// holds the other segments' (at most maxSegments runs').
	sorted []byte
	mu     sync.Mutex
	// added counts what this run marked (its keys are in its segment,
	// read back by Compact and Has).
	added int
	segs  []string
	lock  *os.File
	// seg is this run's segment, made on the first Mark, segSize what
	// was written to it; synced is when a Mark last synced it to disk
	// (the first Mark does), dirty that a write came since the last sync.
	seg     *os.File
	segSize int64
	synced  time.Time
	dirty   bool
	buf     []byte // a Mark's write, reused
}

// syncEvery is how long a run's acknowledgements may sit in the kernel
// before they are synced to disk.
const syncEvery = time.Second

// ledgerSuffix names a segment file.
const ledgerSuffix = ".keys"

// DestinationID is the ledger dir name of a target.
func DestinationID(t Target) string {
	sum := sha256.Sum256([]byte(string(t.Signal) + "\x00" + t.Protocol + "\x00" + t.URL))
	return string(t.Signal) + "-" + hex.EncodeToString(sum[:8])
}

// OpenLedger reads the ledger in dir (made if missing) and, unless
// readOnly, takes its lock (waiting at most wait for another run).
func OpenLedger(dir string, readOnly bool, wait time.Duration) (*Ledger, error) {
	l := &Ledger{dir: dir, keys: map[Key]struct{}{}}
	if !readOnly {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("ledger: %w", err)
		}
		if err := l.takeLock(wait); err != nil {
			return nil, err
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		l.Close()
		return nil, fmt.Errorf("ledger: %w", err)
	}
	for _, de := range ents {
		if !readOnly && !de.IsDir() && strings.HasPrefix(de.Name(), ".") && strings.HasSuffix(de.Name(), ".tmp") {
			// A merged segment Compact was writing when its run was
			// killed (lib/atomicfile's temp file): never read, and no
			// other run writes here while the lock is held.
			_ = os.Remove(filepath.Join(dir, de.Name()))
			continue
		}
		if de.IsDir() || !strings.HasSuffix(de.Name(), ledgerSuffix) {
			continue
		}
		p := filepath.Join(dir, de.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("ledger: %w", err)
		}
		// A segment cut inside a key (a machine that lost power while
		// it was appended to) is read to its last whole key; the events
		// of the cut one are sent again.
		b = b[:len(b)/len(Key{})*len(Key{})]
		if strings.HasSuffix(de.Name(), sortedSuffix) && l.sorted == nil && isSorted(b) {
			l.sorted = b
		} else {
			for i := 0; i < len(b); i += len(Key{}) {
				l.keys[Key(b[i:i+len(Key{})])] = struct{}{}
			}
		}
		l.segs = append(l.segs, p)
	}
	sort.Strings(l.segs)
	return l, nil
}

// sortedSuffix ends the name of a merged segment (Compact's): its keys
// in order, each once.
const sortedSuffix = "-sorted" + ledgerSuffix

// isSorted says b's keys are in strictly increasing order (a merged
// segment as Compact writes it; anything else is read into the map).
func isSorted(b []byte) bool {
	for i := len(Key{}); i < len(b); i += len(Key{}) {
		if bytes.Compare(b[i-len(Key{}):i], b[i:i+len(Key{})]) >= 0 {
			return false
		}
	}
	return true
}

// inSorted says k is one of the keys of sorted (binary search).
func inSorted(sorted []byte, k Key) bool {
	n := len(sorted) / len(Key{})
	i := sort.Search(n, func(i int) bool { return bytes.Compare(sorted[i*len(Key{}):(i+1)*len(Key{})], k[:]) >= 0 })
	return i < n && bytes.Equal(sorted[i*len(Key{}):(i+1)*len(Key{})], k[:])
}

func (l *Ledger) takeLock(wait time.Duration) error {
	f, err := os.OpenFile(filepath.Join(l.dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	deadline := time.Now().Add(wait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			l.lock = f
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return fmt.Errorf("ledger %s: another cc-otel run holds it", l.dir)
			}
			return fmt.Errorf("ledger: lock: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Has says the destination acknowledged k (what this run marked is
// read back from its segment: for checks, not for each event of an
// export).
func (l *Ledger) Has(k Key) bool {
	if l.HadBefore(k) {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.marked()
	for i := 0; i+len(Key{}) <= len(b); i += len(Key{}) {
		if Key(b[i:i+len(Key{})]) == k {
			return true
		}
	}
	return false
}

// marked is what this run's segment holds (nil when none or it cannot
// be read).
func (l *Ledger) marked() []byte {
	if l.seg == nil {
		return nil
	}
	b, err := os.ReadFile(l.seg.Name())
	if err != nil {
		return nil
	}
	return b[:min(int64(len(b)), l.segSize)]
}

// HadBefore says the destination had acknowledged k when the ledger was
// opened (what this run marks is not asked: an export takes an event
// once); it takes no lock.
func (l *Ledger) HadBefore(k Key) bool {
	if _, ok := l.keys[k]; ok {
		return true
	}
	return l.sorted != nil && inSorted(l.sorted, k)
}

// Len is the number of keys (those of the merged segment and the others
// counted apart: a key in both, left by a run killed mid-compaction,
// counts twice).
func (l *Ledger) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.keys) + len(l.sorted)/len(Key{}) + l.added
}

// Mark records keys as acknowledged: one write to this run's segment
// (made on first use), synced when the last sync is syncEvery old.
func (l *Ledger) Mark(keys []Key) error {
	if len(keys) == 0 {
		return nil
	}
	b := l.buf[:0]
	for _, k := range keys {
		b = append(b, k[:]...)
	}
	l.buf = b
	if err := l.appendKeys(b); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	l.mu.Lock()
	l.added += len(keys)
	l.mu.Unlock()
	if now := time.Now(); now.Sub(l.synced) >= syncEvery {
		l.synced = now
		return l.sync()
	}
	return nil
}

// appendKeys writes b to the end of this run's segment in one write; a
// short one is cut back off, leaving the segment as it was.
func (l *Ledger) appendKeys(b []byte) error {
	if l.seg == nil {
		p := filepath.Join(l.dir, segmentName(""))
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return err
		}
		l.seg, l.segSize = f, 0
		l.segs = append(l.segs, p)
		// The new name itself survives a crash once the dir is synced.
		if d, err := os.Open(l.dir); err == nil {
			_ = d.Sync()
			d.Close()
		}
	}
	n, err := l.seg.Write(b)
	if err != nil {
		if n > 0 {
			_ = l.seg.Truncate(l.segSize)
		}
		return err
	}
	l.segSize += int64(n)
	l.dirty = true
	return nil
}

// segmentName is a new segment's file name: the time, the process and tag.
func segmentName(tag string) string {
	return fmt.Sprintf("%020d-%d%s%s", time.Now().UnixNano(), os.Getpid(), tag, ledgerSuffix)
}

// sync puts what this run's segment was written to disk.
func (l *Ledger) sync() error {
	if l.seg == nil || !l.dirty {
		return nil
	}
	l.dirty = false
	if err := l.seg.Sync(); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	return nil
}

// Finish syncs this run's segment and compacts the ledger: called once,
// after the last Mark.
func (l *Ledger) Finish() error {
	if err := l.sync(); err != nil {
		return err
	}
	return l.Compact()
}

// maxSegments is how many segments a ledger keeps before Compact merges
// them into one.
const maxSegments = 16

// Compact merges the segments into one when there are many, each key
// once, in order (looked up by binary search: sorted): the merged file is
// written whole first (lib/atomicfile), then the old ones removed (a crash
// in between leaves keys twice, which reads the same; a temp file, which
// the next run removes). This
// run's segment is closed first; a Mark after Compact makes a new one.
func (l *Ledger) Compact() error {
	if l.lock == nil || len(l.segs) <= maxSegments {
		return nil
	}
	l.mu.Lock()
	mine := l.marked()
	l.mu.Unlock()
	if err := l.closeSegment(); err != nil {
		return err
	}
	// Every key once, in order: the merged segment's, the other
	// segments', this run's (read back from its segment).
	all := make([]Key, 0, len(l.sorted)/len(Key{})+len(l.keys)+len(mine)/len(Key{}))
	for i := 0; i+len(Key{}) <= len(l.sorted); i += len(Key{}) {
		all = append(all, Key(l.sorted[i:i+len(Key{})]))
	}
	for k := range l.keys {
		all = append(all, k)
	}
	for i := 0; i+len(Key{}) <= len(mine); i += len(Key{}) {
		all = append(all, Key(mine[i:i+len(Key{})]))
	}
	slices.SortFunc(all, func(a, b Key) int { return bytes.Compare(a[:], b[:]) })
	all = slices.Compact(all)
	b := make([]byte, 0, len(all)*len(Key{}))
	for _, k := range all {
		b = append(b, k[:]...)
	}
	p := filepath.Join(l.dir, segmentName("-sorted"))
	if err := atomicfile.WriteFileOwned(p, b, 0o600); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	old := l.segs
	l.segs = []string{p}
	for _, op := range old {
		if err := os.Remove(op); err != nil {
			return fmt.Errorf("ledger: %w", err)
		}
	}
	return nil
}

// closeSegment syncs and closes this run's segment.
func (l *Ledger) closeSegment() error {
	if l.seg == nil {
		return nil
	}
	err := l.sync()
	if cerr := l.seg.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("ledger: %w", cerr)
	}
	l.seg = nil
	return err
}

// Close lets the lock go.
func (l *Ledger) Close() {
	_ = l.closeSegment()
	if l.lock != nil {
		_ = l.lock.Close()
		l.lock = nil
	}
}

// Dir is where the ledger lives.
func (l *Ledger) Dir() string { return l.dir }
