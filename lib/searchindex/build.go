package searchindex

import (
	"bytes"
	"io"

	"github.com/ccpipe/ccpipe/lib/search"
)

// Documents are runs of whole lines, cut once they hold docText bytes of
// folded content or docRaw bytes of the file: small enough that a
// candidate costs little to verify, big enough that a posting list
// names few of them (the index stays a fraction of the transcripts).
// Variables so that tests can make many small ones.
var (
	docText = 8 << 10
	docRaw  = 64 << 10
)

// piece is what one run indexed of one file: its documents, each one's
// trigrams, and which documents may hold each term of the running query
// (known while the trigrams were at hand).
type piece struct {
	docs []span
	tris [][]uint32
	cand [][]bool // per term, per document
	text int64    // folded content bytes, for the segment's size
	// The piece's tokens, each once (tokens.go), their bytes in
	// tokText.
	toks    []tokRef
	tokText []byte
}

// builder indexes files for one worker: a bitmap of the trigrams of the
// document being built, and the list of them.
type builder struct {
	q      *query
	seen   []uint64 // 1<<24 bits
	cur    []uint32
	folded []byte
	buf    []byte
	toks   tokSet // the piece's tokens so far
}

func newBuilder(q *query) *builder {
	return &builder{q: q, seen: make([]uint64, 1<<24/64)}
}

// addText adds the trigrams of text, folded as the scan folds, and with
// content its tokens (to p).
func (b *builder) addText(p *piece, text []byte, content bool) int {
	b.folded = search.AppendFold(b.folded[:0], text)
	if content {
		b.addTokens(p, b.folded)
	}
	f := b.folded
	for i := 0; i+2 < len(f); i++ {
		t := uint32(f[i])<<16 | uint32(f[i+1])<<8 | uint32(f[i+2])
		if w, bit := t>>6, uint64(1)<<(t&63); b.seen[w]&bit == 0 {
			b.seen[w] |= bit
			b.cur = append(b.cur, t)
		}
	}
	return len(f)
}

// endDoc closes the document being built over [start, end).
func (b *builder) endDoc(p *piece, start, end int64) {
	for ti, tris := range b.q.tris {
		ok := true
		for _, t := range tris {
			if b.seen[t>>6]&(1<<(t&63)) == 0 {
				ok = false
				break
			}
		}
		p.cand[ti] = append(p.cand[ti], ok)
	}
	for _, t := range b.cur {
		b.seen[t>>6] = 0
	}
	p.docs = append(p.docs, span{start, end})
	p.tris = append(p.tris, append([]uint32(nil), b.cur...))
	b.cur = b.cur[:0]
}

// index reads r, the bytes of a file from offset base on, and indexes its
// lines: a transcript's content strings (lines != nil), or a stored tool
// result's bytes whole; with tokens, the content's tokens too. With
// partial false the last line counts only when a newline ends it;
// covered is where the indexed lines end. count is told how many bytes
// were read.
func (b *builder) index(r io.Reader, base int64, transcript, tokens, partial bool, count func(int)) (p *piece, covered int64, err error) {
	p = &piece{cand: make([][]bool, len(b.q.tris))}
	defer b.toks.reset()
	if cap(b.buf) == 0 {
		b.buf = make([]byte, 256<<10)
	}
	buf := b.buf[:cap(b.buf)]
	keep := 0
	docStart, pos := base, base // pos: the file offset of buf[0]
	covered = base
	text := 0
	eof := false
	for !eof {
		n, rerr := search.ReadFull(r, buf[keep:])
		count(n)
		end := keep + n
		switch rerr {
		case nil:
		case io.EOF:
			eof = true
		default:
			return nil, 0, rerr
		}
		lines := buf[:end]
		if !eof {
			lines = lines[:bytes.LastIndexByte(lines, '\n')+1]
		} else if !partial && len(lines) > 0 && lines[len(lines)-1] != '\n' {
			lines = lines[:bytes.LastIndexByte(lines, '\n')+1] // a line still being written
		}
		if len(lines) == 0 && !eof {
			buf = append(buf[:end], make([]byte, len(buf))...) // one line fills the buffer
			buf = buf[:cap(buf)]
			keep = end
			continue
		}
		for off := 0; off < len(lines); {
			le := len(lines)
			if i := bytes.IndexByte(lines[off:], '\n'); i >= 0 {
				le = off + i + 1
			}
			line := lines[off:le]
			if transcript {
				if search.EachContent(line, func(t []byte) { text += b.addText(p, t, tokens) }) != nil {
					// Not a record: its raw bytes, so that a term there
					// is verified, and the line said to be skipped (its
					// tokens are no content: none is kept).
					text += b.addText(p, line, false)
				}
			} else {
				text += b.addText(p, line, tokens) // a stored tool result is content whole
			}
			off = le
			if at := pos + int64(off); text >= docText || at-docStart >= int64(docRaw) {
				b.endDoc(p, docStart, at)
				p.text += int64(text)
				docStart, text = at, 0
			}
		}
		covered = pos + int64(len(lines))
		keep = copy(buf, buf[len(lines):end])
		pos = covered
	}
	if covered > docStart {
		b.endDoc(p, docStart, covered)
		p.text += int64(text)
	}
	b.buf = buf[:0]
	return p, covered, nil
}
