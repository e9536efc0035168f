package searchindex

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/ccpipe/ccpipe/lib/cache"
	"hash/crc32"
	"io"
	"math/bits"
	"os"
	"slices"
	"sort"
	"sync"
)

// A segment is one immutable file of the index: the documents of the
// pieces of files indexed together, and the posting list of every
// trigram that occurs in them. Every byte read from it is checked: the
// header and the top table by their CRCs when it is opened, the document
// table when first read, each block of the trigram directory and each
// posting list when read. A segment that fails a check is bad: the files
// whose pieces lie in it are searched without the index.
//
//	header    64 bytes (below)
//	docs      ndocs x (start, end uint64): byte ranges of whole lines
//	postings  per trigram, its document numbers as delta uvarints; then
//	          per token key, its tokens and their documents (tokens.go)
//	dir       ntri x (key, offset from postings, length, CRC-32C), by key:
//	          the trigrams (below 1<<24), then the token keys (1<<31 up)
//	top       per block of dirBlock dir entries, (first key, CRC-32C of the block)
//
// Header: magic (16 bytes), version hash (8), ndocs, ntri, postOff,
// dirOff, topOff, size, docs CRC, top CRC, 0, header CRC (4 each).

const (
	segMagic   = "ccpipe-trgm-01\n\x00"
	headerSize = 64
	dirEntry   = 16
	dirBlock   = 256
	maxSegment = 1<<32 - 1
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

var errBad = errors.New("search index: damaged segment")

// span is a document: a byte range of whole lines of its file (of the
// decompressed bytes of an archive).
type span struct{ start, end int64 }

// encodeSegment writes a segment of docs, whose trigrams are given per
// document (tris[d] holds document d's, each once), and the posting
// lists of their tokens (tokenLists).
func encodeSegment(version uint64, docs []span, tris [][]uint32, toks []tokList, counts func() ([]uint32, []uint64)) ([]byte, error) {
	starts, ends, flat := invert(tris, counts)
	nkeys := len(starts) + len(toks)
	b := make([]byte, headerSize, headerSize+16*len(docs)+len(flat)+dirEntry*nkeys)
	for _, s := range docs {
		b = binary.LittleEndian.AppendUint64(b, uint64(s.start))
		b = binary.LittleEndian.AppendUint64(b, uint64(s.end))
	}
	docsCRC := crc32.Checksum(b[headerSize:], crcTable)
	postOff := len(b)
	dir := make([]byte, 0, dirEntry*nkeys)
	keys := slices.Grow(starts, len(toks))
	from := uint32(0)
	for k, t := range starts {
		to := ends[k]
		off := len(b) - postOff
		prev := uint32(0)
		for i, d := range flat[from:to] {
			if i == 0 {
				b = binary.AppendUvarint(b, uint64(d))
			} else {
				b = binary.AppendUvarint(b, uint64(d-prev))
			}
			prev = d
		}
		from = to
		list := b[postOff+off:]
		dir = binary.LittleEndian.AppendUint32(dir, t)
		dir = binary.LittleEndian.AppendUint32(dir, uint32(off))
		dir = binary.LittleEndian.AppendUint32(dir, uint32(len(list)))
		dir = binary.LittleEndian.AppendUint32(dir, crc32.Checksum(list, crcTable))
	}
	for _, tl := range toks {
		off := len(b) - postOff
		b = append(b, tl.list...)
		dir = binary.LittleEndian.AppendUint32(dir, tl.key)
		dir = binary.LittleEndian.AppendUint32(dir, uint32(off))
		dir = binary.LittleEndian.AppendUint32(dir, uint32(len(tl.list)))
		dir = binary.LittleEndian.AppendUint32(dir, crc32.Checksum(tl.list, crcTable))
		keys = append(keys, tl.key)
	}
	dirOff := len(b)
	b = append(b, dir...)
	topOff := len(b)
	for i := 0; i < nkeys; i += dirBlock {
		blk := dir[i*dirEntry : min(nkeys, i+dirBlock)*dirEntry]
		b = binary.LittleEndian.AppendUint32(b, keys[i])
		b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(blk, crcTable))
	}
	topCRC := crc32.Checksum(b[topOff:], crcTable)
	if len(b) > maxSegment {
		return nil, fmt.Errorf("search index: a segment of %d bytes is too big", len(b))
	}
	h := b[:headerSize]
	copy(h, segMagic)
	le := binary.LittleEndian
	le.PutUint64(h[16:], version)
	for i, v := range []int{len(docs), nkeys, postOff, dirOff, topOff, len(b)} {
		le.PutUint32(h[24+4*i:], uint32(v))
	}
	le.PutUint32(h[48:], docsCRC)
	le.PutUint32(h[52:], topCRC)
	le.PutUint32(h[60:], crc32.Checksum(h[:60], crcTable))
	return b, nil
}

// segment is an open segment file.
type segment struct {
	f                     *os.File
	ndocs, ntri           int
	postOff, dirOff, size int64
	docsCRC               uint32
	top                   []uint32 // first trigram of each dir block
	topCRC                []uint32
	docsOnce              sync.Once
	docs                  docTable
	docsErr               error
}

// docTable is a segment's document table as read: (start, end) pairs,
// decoded as asked (a query reads a few of them).
type docTable []byte

func (t docTable) len() int { return len(t) / 16 }

func (t docTable) at(d uint32) span {
	return span{int64(binary.LittleEndian.Uint64(t[16*d:])), int64(binary.LittleEndian.Uint64(t[16*d+8:]))}
}

// openSegment opens and checks a segment's header and top table.
func openSegment(path string, version uint64) (*segment, error) {
	f, err := cache.OpenFile(path)
	if err != nil {
		return nil, err
	}
	s, err := readSegment(f, version)
	if err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

func readSegment(f *os.File, version uint64) (*segment, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var h [headerSize]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return nil, errBad
	}
	le := binary.LittleEndian
	if string(h[:16]) != segMagic || le.Uint32(h[60:]) != crc32.Checksum(h[:60], crcTable) {
		return nil, errBad
	}
	if le.Uint64(h[16:]) != version {
		return nil, errBad
	}
	u := func(i int) int64 { return int64(le.Uint32(h[24+4*i:])) }
	s := &segment{f: f, ndocs: int(u(0)), ntri: int(u(1)), postOff: u(2), dirOff: u(3), size: u(5), docsCRC: le.Uint32(h[48:])}
	topOff := u(4)
	nblocks := (s.ntri + dirBlock - 1) / dirBlock
	if s.size != fi.Size() || s.postOff != headerSize+16*int64(s.ndocs) || s.dirOff < s.postOff ||
		topOff != s.dirOff+dirEntry*int64(s.ntri) || s.size != topOff+8*int64(nblocks) {
		return nil, errBad // truncated, or not what was written
	}
	top := make([]byte, s.size-topOff)
	if _, err := f.ReadAt(top, topOff); err != nil || crc32.Checksum(top, crcTable) != le.Uint32(h[52:]) {
		return nil, errBad
	}
	for i := 0; i < nblocks; i++ {
		s.top = append(s.top, le.Uint32(top[8*i:]))
		s.topCRC = append(s.topCRC, le.Uint32(top[8*i+4:]))
	}
	return s, nil
}

func (s *segment) close() { s.f.Close() }

// spans returns the document table, read and checked once.
func (s *segment) spans() (docTable, error) {
	s.docsOnce.Do(func() {
		b := make([]byte, 16*s.ndocs)
		if _, err := s.f.ReadAt(b, headerSize); err != nil || crc32.Checksum(b, crcTable) != s.docsCRC {
			s.docsErr = errBad
			return
		}
		s.docs = b
	})
	return s.docs, s.docsErr
}

// entry finds trigram t's directory entry: where its posting list lies,
// and its CRC. ok false when no document holds t. The directory block
// is read into *buf, grown as needed.
func (s *segment) entry(t uint32, buf *[]byte) (off, ln int64, sum uint32, ok bool, err error) {
	blk := sort.Search(len(s.top), func(i int) bool { return s.top[i] > t }) - 1
	if blk < 0 {
		return 0, 0, 0, false, nil
	}
	n := min(dirBlock, s.ntri-blk*dirBlock)
	*buf = slices.Grow((*buf)[:0], n*dirEntry)[:n*dirEntry]
	dir := *buf
	if _, err := s.f.ReadAt(dir, s.dirOff+int64(blk*dirBlock*dirEntry)); err != nil || crc32.Checksum(dir, crcTable) != s.topCRC[blk] {
		return 0, 0, 0, false, errBad
	}
	le := binary.LittleEndian
	i := sort.Search(n, func(i int) bool { return le.Uint32(dir[i*dirEntry:]) >= t })
	if i == n || le.Uint32(dir[i*dirEntry:]) != t {
		return 0, 0, 0, false, nil
	}
	e := dir[i*dirEntry:]
	off, ln, sum = int64(le.Uint32(e[4:])), int64(le.Uint32(e[8:])), le.Uint32(e[12:])
	if s.postOff+off+ln > s.dirOff {
		return 0, 0, 0, false, errBad
	}
	return off, ln, sum, true, nil
}

// has reports whether some document of the segment holds trigram t.
func (s *segment) has(t uint32) (bool, error) {
	var buf []byte
	_, _, _, ok, err := s.entry(t, &buf)
	return ok, err
}

// allOf returns the documents holding every trigram of ts, in order (nil
// when none does): the posting lists read shortest first, each next one
// merged into the documents left, so that a common trigram's long list
// is never held whole.
func (s *segment) allOf(ts []uint32) ([]uint32, error) {
	type list struct {
		off, ln int64
		sum     uint32
	}
	var buf []byte
	lists := make([]list, 0, len(ts))
	for _, t := range ts {
		off, ln, sum, ok, err := s.entry(t, &buf)
		if !ok || err != nil {
			return nil, err
		}
		lists = append(lists, list{off, ln, sum})
	}
	slices.SortStableFunc(lists, func(a, b list) int { return cmp.Compare(a.ln, b.ln) })
	var docs []uint32
	for i, l := range lists {
		buf = slices.Grow(buf[:0], int(l.ln))[:l.ln]
		if _, err := s.f.ReadAt(buf, s.postOff+l.off); err != nil && err != io.EOF || crc32.Checksum(buf, crcTable) != l.sum {
			return nil, errBad
		}
		var err error
		if i == 0 {
			docs, err = s.decodeList(buf, make([]uint32, 0, len(buf)), nil)
		} else {
			docs, err = s.decodeList(buf, docs[:0], docs)
		}
		if err != nil {
			return nil, err
		}
		if len(docs) == 0 {
			return nil, nil
		}
	}
	return docs, nil
}

// decodeList decodes a posting list (document numbers as delta
// uvarints) and appends to out those also in keep (every one when keep
// is nil). out may share keep's array: it is never ahead of it.
func (s *segment) decodeList(list []byte, out, keep []uint32) ([]uint32, error) {
	var d uint64
	k := 0
	for first := true; len(list) > 0; first = false {
		v, n := binary.Uvarint(list)
		if n <= 0 {
			return nil, errBad
		}
		list = list[n:]
		if first {
			d = v
		} else {
			d += v
		}
		if d >= uint64(s.ndocs) {
			return nil, errBad
		}
		if keep == nil {
			out = append(out, uint32(d))
			continue
		}
		for k < len(keep) && uint64(keep[k]) < d {
			k++
		}
		if k < len(keep) && uint64(keep[k]) == d {
			out = append(out, uint32(d))
			k++
		}
	}
	return out, nil
}

// invert turns each document's trigrams into each trigram's documents:
// the trigrams present in order (starts), where each one's documents end
// in flat (ends), and flat, each run in document order. A big segment is
// sorted by counting (a count per possible trigram and a bitmap of those
// present, from counts(): all zeros, and left so); a
// small one, as one run's update, by sorting its pairs.
// sortBelow: a segment of fewer (document, trigram) pairs than this is
// inverted by sorting its pairs (a variable: a test takes each path).
var sortBelow = 1 << 20

func invert(tris [][]uint32, counts func() ([]uint32, []uint64)) (starts, ends, flat []uint32) {
	total := 0
	for _, ts := range tris {
		total += len(ts)
	}
	flat = make([]uint32, total)
	if total < sortBelow {
		pairs := make([]uint64, 0, total)
		for d, ts := range tris {
			for _, t := range ts {
				pairs = append(pairs, uint64(t)<<32|uint64(d))
			}
		}
		slices.Sort(pairs)
		for i, p := range pairs {
			t := uint32(p >> 32)
			if len(starts) == 0 || starts[len(starts)-1] != t {
				if len(starts) > 0 {
					ends = append(ends, uint32(i))
				}
				starts = append(starts, t)
			}
			flat[i] = uint32(p)
		}
		if len(starts) > 0 {
			ends = append(ends, uint32(len(pairs)))
		}
		return starts, ends, flat
	}
	// c is all zeros on entry and left so: only the trigrams present
	// are touched, found in order from a bitmap of them (2 MiB) instead
	// of a pass over c's 64 MiB, and set back to zero at the end.
	c, seen := counts()
	for _, ts := range tris {
		for _, t := range ts {
			c[t]++
			seen[t>>6] |= 1 << (t & 63)
		}
	}
	for w, m := range seen {
		for m != 0 {
			starts = append(starts, uint32(w)<<6|uint32(bits.TrailingZeros64(m)))
			m &= m - 1
		}
		seen[w] = 0
	}
	var sum uint32
	for _, t := range starts {
		n := c[t]
		c[t] = sum
		sum += n
	}
	for d, ts := range tris {
		for _, t := range ts {
			flat[c[t]] = uint32(d)
			c[t]++
		}
	}
	ends = make([]uint32, len(starts))
	for k, t := range starts {
		ends[k] = c[t] // the end of t's run after the scatter
		c[t] = 0
	}
	return starts, ends, flat
}
