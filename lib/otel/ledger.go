package otel

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
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
// 16-byte keys; each acknowledged request adds one segment, written
// through lib/atomicfile (whole or not at all) only after the collector
// acknowledged it. A crash before that write leaves the request's events
// unmarked: they are sent again by the next run (at least once, and once
// when the collector's acknowledgement and the write both happened).
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
	// mu guards keys: an export checks them while its delivering
	// goroutine marks what was acknowledged.
	mu   sync.Mutex
	keys map[Key]struct{}
	segs []string
	lock *os.File
	seq  int
}

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
		if de.IsDir() || !strings.HasSuffix(de.Name(), ledgerSuffix) {
			continue
		}
		p := filepath.Join(dir, de.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("ledger: %w", err)
		}
		if len(b)%len(Key{}) != 0 {
			// atomicfile writes whole segments; a cut one is not ours.
			l.Close()
			return nil, fmt.Errorf("ledger: %s is not a whole number of keys (%d bytes); move it away to send its events again", p, len(b))
		}
		for i := 0; i < len(b); i += len(Key{}) {
			l.keys[Key(b[i:i+len(Key{})])] = struct{}{}
		}
		l.segs = append(l.segs, p)
	}
	sort.Strings(l.segs)
	return l, nil
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

// Has says the destination acknowledged k.
func (l *Ledger) Has(k Key) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.keys[k]
	return ok
}

// Len is the number of keys.
func (l *Ledger) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.keys)
}

// Mark records keys as acknowledged: one new segment, written whole.
func (l *Ledger) Mark(keys []Key) error {
	if len(keys) == 0 {
		return nil
	}
	b := make([]byte, 0, len(keys)*len(Key{}))
	for _, k := range keys {
		b = append(b, k[:]...)
	}
	l.seq++
	name := fmt.Sprintf("%020d-%d-%06d%s", time.Now().UnixNano(), os.Getpid(), l.seq, ledgerSuffix)
	p := filepath.Join(l.dir, name)
	if err := atomicfile.WriteFile(p, b, 0o600); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	l.mu.Lock()
	for _, k := range keys {
		l.keys[k] = struct{}{}
	}
	l.mu.Unlock()
	l.segs = append(l.segs, p)
	return nil
}

// maxSegments is how many segments a ledger keeps before Compact merges
// them into one.
const maxSegments = 16

// Compact merges the segments into one when there are many: the merged
// file is written whole first, then the old ones removed (a crash in
// between leaves keys twice, which reads the same).
func (l *Ledger) Compact() error {
	if l.lock == nil || len(l.segs) <= maxSegments {
		return nil
	}
	l.mu.Lock()
	keys := make([]Key, 0, len(l.keys))
	for k := range l.keys {
		keys = append(keys, k)
	}
	l.mu.Unlock()
	old := l.segs
	l.segs = nil
	if err := l.Mark(keys); err != nil {
		l.segs = old
		return err
	}
	for _, p := range old {
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("ledger: %w", err)
		}
	}
	return nil
}

// Close lets the lock go.
func (l *Ledger) Close() {
	if l.lock != nil {
		_ = l.lock.Close()
		l.lock = nil
	}
}

// Dir is where the ledger lives.
func (l *Ledger) Dir() string { return l.dir }
