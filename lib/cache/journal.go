package cache

import (
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/ccpipe/ccpipe/lib/atomicfile"
)

// The journal: what runs changed in a store, appended after it instead of
// the store written again whole (a grown transcript's facts are most of
// a store's bytes, and only what follows its checkpoint changed). Each
// record is its body's length (4 bytes), the body, and a CRC-32C of the
// body (4 bytes); the body is the entry's path, the gen of the entry it
// extends, how many bytes of that entry's data it keeps, then the entry
// as the store holds one (stamp, offset, tail, last use, gen) and the
// data after the bytes kept. A record is applied only when the entry it
// extends is the one before it (its gen): two runs that extended one
// entry from the same state leave it dropped, not mixed. A record cut by
// a crash or damaged ends the journal there (and the store is written
// whole at the next save). A journal past half its store's size, any
// entry dropped, or a store file not as it was read has the store
// written whole instead.

// op is a change to an entry of this run, to append: keep bytes of the
// data of the entry of gen prev, as on disk.
type op struct {
	keep int
	prev uint64
}

// newGen names a new state of an entry.
func newGen() uint64 { return rand.Uint64() | 1 }

// applyJournal applies the records of j to entries and reports whether
// they all read; sealed, without their checksums (see the seal); with
// ownKeys, paths copied (decode).
func applyJournal(entries map[string]*Entry, j []byte, sealed, ownKeys bool) bool {
	for len(j) > 0 {
		if len(j) < 8 {
			return false
		}
		n := int(binary.LittleEndian.Uint32(j))
		if n > len(j)-8 {
			return false
		}
		body := j[4 : 4+n]
		if !sealed && crc32.Checksum(body, storeCRC) != binary.LittleEndian.Uint32(j[4+n:]) {
			return false
		}
		j = j[8+n:]
		d := Decoder{b: body}
		path, prev, keep := d.StrShared(), d.U64(), d.Count()
		if ownKeys {
			path = strings.Clone(path)
		}
		e := &Entry{Stamp: d.Stamp()}
		e.Offset, e.Tail, e.used, e.gen = d.Varint(), d.U64(), d.Varint(), d.U64()
		data := d.Bytes()
		if d.Err() != nil || len(d.b) != 0 || e.Offset < 0 {
			return false
		}
		old := entries[path]
		switch {
		case keep == 0:
			e.Data = data
		case old == nil || old.gen != prev || keep > len(old.Data):
			delete(entries, path) // extends another state: a read again
			continue
		default:
			e.Data = append(append(make([]byte, 0, keep+len(data)), old.Data[:keep]...), data...)
		}
		entries[path] = e
	}
	return true
}

// sealRecord finishes a record: rec is 4 bytes for its length, then its
// body; the length is set and the body's checksum appended.
func sealRecord(rec []byte) []byte {
	binary.LittleEndian.PutUint32(rec, uint32(len(rec)-4))
	return binary.LittleEndian.AppendUint32(rec, crc32.Checksum(rec[4:], storeCRC))
}

// appendJournal appends this run's changes to the store file, and
// reports whether it did: not when the store must be written whole, its
// journal would grow past half the store, or the file is not the one
// read (another run wrote it since).
func (s *Store) appendJournal() bool {
	if s.whole || len(s.ops) == 0 {
		return false
	}
	paths := make([]string, 0, len(s.ops))
	size := int64(0)
	for p, o := range s.ops {
		e := s.entries[p]
		if e == nil {
			return false
		}
		paths = append(paths, p)
		size += int64(len(p)+len(e.Data)-o.keep) + 64
	}
	if s.jouLen+size > s.baseLen/2 {
		return false
	}
	sort.Strings(paths)
	b := make([]byte, 0, size)
	for _, p := range paths {
		o, e := s.ops[p], s.entries[p]
		at := len(b)
		b = append(b, 0, 0, 0, 0)
		b = putStr(b, p)
		b = binary.LittleEndian.AppendUint64(b, o.prev)
		b = binary.AppendUvarint(b, uint64(o.keep))
		b = AppendStamp(b, e.Stamp)
		b = binary.AppendVarint(b, e.Offset)
		b = binary.LittleEndian.AppendUint64(b, e.Tail)
		b = binary.AppendVarint(b, e.used)
		b = binary.LittleEndian.AppendUint64(b, e.gen)
		b = binary.AppendUvarint(b, uint64(len(e.Data)-o.keep))
		b = append(b, e.Data[o.keep:]...)
		b = append(b[:at], sealRecord(b[at:])...)
	}
	// The store dir is ccpipe's own: a link planted there is not
	// followed, a FIFO not opened for good (it is then written whole,
	// which replaces it).
	f, err := atomicfile.OpenAppendOwned(s.path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if now := StampOf(fi); now.Dev != s.file.Dev || now.Ino != s.file.Ino || now.Size != s.baseLen+s.jouLen {
		return false
	}
	if _, err := f.Write(b); err != nil {
		// Written in part: the record cut is not applied, nor anything
		// after it (the store is written whole next time, as now).
		return false
	}
	s.jouLen += int64(len(b))
	return true
}
