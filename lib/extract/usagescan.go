package extract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// The usage fast path reads a transcript without decoding it: lines are
// found by the bytes of an assistant record's type, and only the few
// fields usage needs are read out of them, skipping string bodies (most of
// a transcript's bytes) with a byte search.

// The needle is the quoted type alone, not `"type":"assistant"`, so that a
// transcript re-encoded with a space after the colon is still read; the
// walker confirms the type.
var assistantType = []byte(`"assistant"`)

// usageLine is what the fast path reads from an assistant record. The
// slices point into the line (or, for a value written with escapes, into
// a fresh copy).
type usageLine struct {
	typ, uuid, ts, sid, aid, reqID, reqRef, cwd, msgID, model []byte
	u                                                         TokenUsage
	hasUsage, apiError                                        bool
	// bad names the fields of an unexpected type (a count that is not an
	// integer in int64's range, nor null): they read as empty, as a decode
	// of the record reads them.
	bad []string
}

// errWalk is wrapped by the walker's errors: the line is not the JSON
// object it claims to be.
var errWalk = errors.New("malformed record")

// walker reads a record's fields with the strict scanner: it accepts the
// lines a decode accepts, and reads the values a decode reads.
type walker struct {
	c   jsonscan.Cursor
	bad *[]string
}

func walkErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", errWalk, err)
}

// object walks the object at the cursor, calling field for each member;
// a value of another type is skipped, as a decode leaves it unset.
func (p *walker) object(field func(key []byte) error) error {
	if p.c.Peek() != '{' {
		return p.skip()
	}
	if err := p.c.Enter(); err != nil {
		return err
	}
	for {
		k, esc, ok, err := p.c.Member()
		if err != nil || !ok {
			return err
		}
		if esc {
			k = []byte(jsonscan.Key(k, esc))
		}
		if err := field(k); err != nil {
			return err
		}
	}
}

// str reads a string value into *dst; a value of another type is skipped.
func (p *walker) str(dst *[]byte) error {
	if p.c.Peek() != '"' {
		return p.skip()
	}
	v, err := p.c.String()
	*dst = v
	return err
}

// num reads a count into *dst as encoding/json reads an int64: an integer
// literal in range. Anything else but null reads 0 and names the field.
func (p *walker) num(dst *int64, path string) error {
	*dst = 0
	switch p.c.Peek() {
	case 'n':
		_, err := p.c.Null()
		return err
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		lit, err := p.c.Number()
		if err != nil {
			return err
		}
		if n, err := strconv.ParseInt(string(lit), 10, 64); err == nil {
			*dst = n
			return nil
		}
	default:
		if err := p.skip(); err != nil {
			return err
		}
	}
	*p.bad = append(*p.bad, path)
	return nil
}

func (p *walker) boolean(dst *bool) error {
	switch p.c.Peek() {
	case 't', 'f':
		v, err := p.c.Bool()
		*dst = v
		return err
	}
	return p.skip()
}

func (p *walker) skip() error { return p.c.Skip() }

// scanUsageLine reads the usage fields of one transcript line.
func scanUsageLine(b []byte, l *usageLine) error {
	bad := l.bad[:0]
	*l = usageLine{bad: bad}
	p := walker{c: jsonscan.New(b), bad: &l.bad}
	if p.c.Peek() != '{' {
		return fmt.Errorf("%w: expected an object", errWalk)
	}
	err := p.object(func(k []byte) error {
		switch string(k) {
		case "type":
			return p.str(&l.typ)
		case "uuid":
			return p.str(&l.uuid)
		case "timestamp":
			return p.str(&l.ts)
		case "sessionId":
			return p.str(&l.sid)
		case "agentId":
			return p.str(&l.aid)
		case "requestId":
			return p.str(&l.reqID)
		case "requestRef":
			return p.str(&l.reqRef)
		case "cwd":
			return p.str(&l.cwd)
		case "isApiErrorMessage":
			return p.boolean(&l.apiError)
		case "message":
			return p.message(l)
		}
		return p.skip()
	})
	if err == nil {
		err = p.c.End()
	}
	return walkErr(err)
}

func (p *walker) message(l *usageLine) error {
	return p.object(func(k []byte) error {
		switch string(k) {
		case "id":
			return p.str(&l.msgID)
		case "model":
			return p.str(&l.model)
		case "usage":
			if p.c.Peek() == '{' {
				l.hasUsage = true
			}
			return p.usage(l)
		}
		return p.skip()
	})
}

// usage reads message.usage; a field added here is read by the fast path
// as the decode reads it.
func (p *walker) usage(l *usageLine) error {
	return p.object(func(k []byte) error {
		switch string(k) {
		case "input_tokens":
			return p.num(&l.u.InputTokens, "message.usage.input_tokens")
		case "output_tokens":
			return p.num(&l.u.OutputTokens, "message.usage.output_tokens")
		case "cache_read_input_tokens":
			return p.num(&l.u.CacheReadInputTokens, "message.usage.cache_read_input_tokens")
		case "cache_creation_input_tokens":
			return p.num(&l.u.CacheCreationInputTokens, "message.usage.cache_creation_input_tokens")
		}
		return p.skip()
	})
}

// mismatch is a line counted with fields of an unexpected type.
type mismatch struct {
	line   int
	fields string
}

// scanStats counts what a fast-path read skipped.
type scanStats struct {
	malformed  []int // the first lines, in file order
	nMalformed int
	tooLong    []int
	mismatched []mismatch // lines counted with a token count of the wrong type
	incomplete bool
	// notEntries counts JSON objects without a "type" (cc-extract's own
	// output, another tool's NDJSON); sawEntry is set once a line looked
	// like an entry. Both as transcript.Reader counts them.
	notEntries int
	sawEntry   bool
}

// badLine counts a malformed line, or an incomplete one at the end.
func (st *scanStats) badLine(n int, partial bool) {
	switch {
	case partial:
		st.incomplete = true
	default:
		st.nMalformed++
		if len(st.malformed) < maxFileWarnings {
			st.malformed = append(st.malformed, n)
		}
	}
}

// other checks the lines the fast path passes over, as cheaply as
// transcript.Reader checks the lines its prefilter drops: a line that is
// not an object is malformed, and until the first entry a line without
// "type" is not a transcript entry. A line is split out only to look at
// its first byte; the "type" search runs only until an entry is seen.
func (st *scanStats) other(seg []byte, n int, partial, head bool) int {
	first := n
	for len(seg) > 0 {
		line := seg
		if !partial && !head {
			i := bytes.IndexByte(seg, '\n')
			line, seg = seg[:i], seg[i+1:]
		} else {
			seg = nil
		}
		if len(line) == 0 || line[0] != '{' {
			switch t := bytes.TrimSpace(line); {
			case len(t) == 0:
				n++
				continue
			case t[0] != '{':
				st.badLine(n, partial)
				n++
				continue
			}
		}
		if !st.sawEntry {
			if bytes.Contains(line, typeKey) {
				st.sawEntry = true
			} else {
				st.notEntries++
			}
		}
		n++
	}
	return n - first
}

const (
	scanChunk = 1 << 20
	maxLine   = 1 << 30
	// keepLimit is how much of a line still without a match is held in
	// memory; past it, a file read with ReadAt drops the line's head and
	// reads it back only if the match comes after all.
	keepLimit = 4 << 20
	// headKeep is how much of a dropped line is kept for the checks of
	// lineFinder.other: a transcript entry's first bytes hold a "type".
	headKeep = 64 << 10
)

// lineFinder finds the lines of a stream that contain a pattern. The byte
// search runs over whole chunks: lines without the pattern are never split
// out, and (when the stream is a file) never held whole either.
type lineFinder struct {
	r    io.Reader
	ra   io.ReaderAt // the same stream, when it can be read back
	pat  []byte
	buf  []byte
	keep int // keepLimit, smaller in tests
	fn   func(line []byte, lineno int, partial bool) error
	// skipped is told the number of a matching line too long to hand on.
	skipped func(lineno int)
	// other, when set, is given the lines passed over (without the
	// pattern) so they can be checked cheaply: whole lines, each ending in
	// a newline, the first numbered first, and it returns how many there
	// were (it splits them anyway, so they are not counted twice); a final
	// line without a newline is given alone with partial set, and of a
	// line too long to hold only its head is given (head set), once its
	// end is found without the pattern.
	other func(seg []byte, first int, partial, head bool) int
	head  []byte // the first bytes of the line being followed, for other
	start int    // data is buf[start:end]
	end   int    //
	from  int    // no match begins in buf[start:from]
	base  int64  // stream offset of buf[0]
	lines int    // newlines before buf[start]
	eof   bool
	// lost is the stream offset of the current line when its head was
	// dropped (-1 otherwise); matched tells whether the pattern was seen
	// in it, tooLong whether it is being skipped for good.
	lost    int64
	matched bool
	tooLong bool
}

// eachLineWith calls fn for every line of r that contains pat, with its
// 1-based line number; partial is set for a final line without a newline.
// buf is a reusable buffer; the one to reuse next is returned.
func eachLineWith(r io.Reader, pat []byte, buf []byte, fn func(line []byte, lineno int, partial bool) error) ([]byte, error) {
	return findLines(r, pat, buf, keepLimit, fn)
}

func findLines(r io.Reader, pat []byte, buf []byte, keep int, fn func(line []byte, lineno int, partial bool) error) ([]byte, error) {
	return findLinesSkipping(r, pat, buf, keep, fn, nil)
}

func findLinesSkipping(r io.Reader, pat []byte, buf []byte, keep int, fn func(line []byte, lineno int, partial bool) error, skipped func(int)) ([]byte, error) {
	f := &lineFinder{r: r, pat: pat, keep: keep, fn: fn, skipped: skipped}
	return f.find(buf)
}

func (f *lineFinder) find(buf []byte) ([]byte, error) {
	if cap(buf) < 16 {
		buf = make([]byte, scanChunk)
	}
	f.buf, f.lost = buf[:cap(buf)], -1
	r := f.r
	if rb, ok := r.(*readBack); ok {
		f.ra = rb
	} else if ra, ok := r.(io.ReaderAt); ok {
		if _, ok := r.(io.Seeker); ok {
			f.ra = ra
		}
	}
	err := f.run()
	return f.buf, err
}

func (f *lineFinder) run() error {
	for {
		for {
			done, more, err := f.step()
			if err != nil || done {
				return err
			}
			if more {
				break
			}
		}
		if f.eof {
			return nil
		}
		if err := f.refill(); err != nil {
			return err
		}
	}
}

// step handles what the buffer holds: it reports done at the end, more
// when it needs more input.
func (f *lineFinder) step() (done, more bool, err error) {
	if f.lost >= 0 {
		return f.stepLost()
	}
	data := f.buf[f.start:f.end]
	i := bytes.Index(f.buf[f.from:f.end], f.pat)
	if i < 0 {
		k := bytes.LastIndexByte(data, '\n') + 1
		f.lines += f.pass(data[:k])
		f.start += k
		if f.eof {
			if f.other != nil && k < len(data) {
				f.other(data[k:], f.lines+1, true, false)
			}
			return true, false, nil
		}
		f.from = max(f.start, f.end-len(f.pat)+1)
		if f.end-f.start > f.keep && f.ra != nil || f.end-f.start > maxLine {
			// A long line without the pattern so far: keep only the bytes
			// a match could start in.
			if f.other != nil {
				f.head = append(f.head[:0], f.buf[f.start:min(f.end, f.start+headKeep)]...)
			}
			f.lost, f.matched, f.tooLong = f.base+int64(f.start), false, f.ra == nil
			f.start = f.from
		}
		return false, true, nil
	}
	i += f.from - f.start
	ls := bytes.LastIndexByte(data[:i], '\n') + 1
	le := bytes.IndexByte(data[i:], '\n')
	f.lines += f.pass(data[:ls])
	if le < 0 && !f.eof {
		f.start += ls
		f.from = f.start + i - ls // found again on the next step, with its line end
		if f.end-f.start > f.keep && f.ra != nil || f.end-f.start > maxLine {
			f.lost, f.matched, f.tooLong = f.base+int64(f.start), true, f.ra == nil
			f.start = f.end
		}
		return false, true, nil
	}
	n := f.lines + 1
	line := data[ls:]
	if le >= 0 {
		line = data[ls : i+le]
	}
	if err := f.fn(bytes.TrimSuffix(line, cr), n, le < 0); err != nil {
		return false, false, err
	}
	if le < 0 {
		return true, false, nil
	}
	f.lines = n
	f.start += i + le + 1
	f.from = f.start
	return false, false, nil
}

// pass goes over whole lines without the pattern and returns how many
// there are.
func (f *lineFinder) pass(seg []byte) int {
	if f.other == nil {
		return bytes.Count(seg, nl)
	}
	if len(seg) == 0 {
		return 0
	}
	return f.other(seg, f.lines+1, false, false)
}

// stepLost follows a line whose head was dropped to its end, and reads it
// back when it holds the pattern after all.
func (f *lineFinder) stepLost() (done, more bool, err error) {
	k := bytes.IndexByte(f.buf[f.start:f.end], '\n')
	stop := f.end
	if k >= 0 {
		stop = f.start + k
	}
	if !f.matched && bytes.Contains(f.buf[f.from:stop], f.pat) {
		f.matched = true
	}
	if k < 0 && !f.eof {
		f.start = max(f.start, f.end-len(f.pat)+1)
		f.from = f.start
		return false, true, nil
	}
	n := f.lines + 1
	if !f.matched && f.other != nil {
		f.other(f.head, n, k < 0, true)
	}
	if f.matched && (f.tooLong || f.base+int64(stop)-f.lost > maxLine) {
		if f.skipped != nil {
			f.skipped(n)
		}
	} else if f.matched {
		line := make([]byte, f.base+int64(stop)-f.lost)
		if n, err := f.ra.ReadAt(line, f.lost); n < len(line) {
			if err == nil || err == io.EOF {
				err = errShrank
			}
			return false, false, err
		}
		if err := f.fn(bytes.TrimSuffix(line, cr), n, k < 0); err != nil {
			return false, false, err
		}
	}
	f.lost, f.matched, f.tooLong = -1, false, false
	if k < 0 {
		return true, false, nil
	}
	f.lines = n
	f.start += k + 1
	f.from = f.start
	return false, false, nil
}

var (
	nl      = []byte{'\n'}
	cr      = []byte{'\r'}
	typeKey = []byte(`"type"`)
)

// refill keeps the unfinished line, grows the buffer when the line fills
// it, and reads until the buffer is full, so that a long line is not
// searched again for every small read.
func (f *lineFinder) refill() error {
	if len(f.buf) > 4*scanChunk && f.end-f.start < scanChunk {
		// A long line is behind us: do not keep its memory.
		nb := make([]byte, scanChunk)
		f.shift(nb)
	} else if f.start == 0 && f.end == len(f.buf) {
		// Doubling past the line cap would hold twice the cap (old and new
		// buffer) before the line is found too long: grow to just over it.
		f.shift(make([]byte, min(2*len(f.buf), maxLine+scanChunk)))
	} else {
		f.shift(f.buf)
	}
	// Not io.ReadFull: it turns a short read before io.EOF into
	// io.ErrUnexpectedEOF, and so cannot tell the end of a file from a
	// decompressor's own io.ErrUnexpectedEOF, a truncated .gz or .zst.
	for f.end < len(f.buf) {
		m, err := f.r.Read(f.buf[f.end:])
		f.end += m
		if err == io.EOF {
			f.eof = true
			return f.checkSize()
		}
		if err != nil {
			if err == io.ErrUnexpectedEOF {
				return fmt.Errorf("%w (a truncated compressed file?)", err)
			}
			return err
		}
	}
	return nil
}

// readBack is a compressed transcript's stream with a ReadAt that
// decompresses the file a second time: lines are read back in file order,
// so the second decompression only moves forward (reopened if asked to go
// back) and costs at most one more pass over the file.
type readBack struct {
	io.Reader
	path string
	rc   io.ReadCloser // the second decompression, at pos
	pos  int64
}

func (b *readBack) ReadAt(p []byte, off int64) (int, error) {
	if b.rc == nil || off < b.pos {
		b.Close()
		rc, err := transcript.Open(b.path)
		if err != nil {
			return 0, err
		}
		b.rc, b.pos = rc, 0
	}
	n, err := io.CopyN(io.Discard, b.rc, off-b.pos)
	b.pos += n
	if err != nil {
		return 0, err
	}
	m, err := io.ReadFull(b.rc, p)
	b.pos += int64(m)
	if err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	return m, err
}

func (b *readBack) Close() error {
	if b.rc == nil {
		return nil
	}
	err := b.rc.Close()
	b.rc = nil
	return err
}

// errShrank is returned when a file got shorter than what was already
// read from it: the lines read are not the file's.
var errShrank = errors.New("file shrank while it was read")

// checkSize runs at the end of a plain file: a file cut below what was
// read ends the read early, which must not pass for its end.
func (f *lineFinder) checkSize() error {
	file, ok := f.r.(*os.File)
	if !ok {
		return nil
	}
	fi, err := file.Stat()
	if err != nil {
		return err
	}
	if read := f.base + int64(f.end); fi.Mode().IsRegular() && fi.Size() < read {
		return fmt.Errorf("%w (%d bytes read, %d left)", errShrank, read, fi.Size())
	}
	return nil
}

// shift moves buf[start:end] to the front of nb and makes nb the buffer.
func (f *lineFinder) shift(nb []byte) {
	n := copy(nb, f.buf[f.start:f.end])
	f.base += int64(f.start)
	f.from -= f.start
	f.start, f.end, f.buf = 0, n, nb
}

// scanUsageFile reads the assistant records of one transcript the fast
// way and returns its messages in file order, each message's records
// folded into one. buf is a reusable read buffer; the one to reuse next is
// returned.
func scanUsageFile(f file, buf []byte) ([]usageRec, []byte, scanStats, error) {
	var st scanStats
	rc, err := transcript.Open(f.path)
	if err != nil {
		return nil, buf, st, err
	}
	defer rc.Close()
	var in io.Reader = rc
	if _, ok := rc.(io.ReaderAt); !ok {
		// Compressed: a long line is found again by decompressing a
		// second time, so what is held stays keepLimit, not the line cap.
		rb := &readBack{Reader: rc, path: f.path}
		defer rb.Close()
		in = rb
	}
	var recs []usageRec
	g := grouper{out: func(r *usageRec, _ uint64) error {
		recs = append(recs, *r)
		return nil
	}}
	var l usageLine
	// Interned per file: the same session, cwd and model repeat on every
	// record.
	var sid, aid, cwd, model string
	intern := func(cur *string, b []byte) string {
		if string(b) != *cur {
			*cur = string(b)
		}
		return *cur
	}
	tooLong := func(n int) {
		if len(st.tooLong) < maxFileWarnings {
			st.tooLong = append(st.tooLong, n)
		}
	}
	lf := &lineFinder{r: in, pat: assistantType, keep: keepLimit, skipped: tooLong, other: st.other}
	lf.fn = func(line []byte, n int, partial bool) error {
		if err := scanUsageLine(line, &l); err != nil {
			if len(bytes.TrimSpace(line)) > 0 {
				st.badLine(n, partial)
			}
			return nil
		}
		if len(l.typ) == 0 {
			st.notEntries++
		} else {
			st.sawEntry = true
		}
		if string(l.typ) != "assistant" || !l.hasUsage || l.apiError || string(l.model) == "<synthetic>" {
			return nil
		}
		if len(l.bad) > 0 && len(st.mismatched) < maxFileWarnings {
			// Sorted, as the decode path names them.
			slices.Sort(l.bad)
			st.mismatched = append(st.mismatched, mismatch{n, strings.Join(slices.Compact(l.bad), ", ")})
		}
		r := usageRec{msgID: string(l.msgID), reqID: string(l.reqID), reqRef: string(l.reqRef),
			uuid: string(l.uuid), ts: string(l.ts), model: intern(&model, l.model),
			sessionID: intern(&sid, l.sid), agentID: intern(&aid, l.aid), cwd: intern(&cwd, l.cwd), u: l.u}
		if r.sessionID == "" {
			r.sessionID = f.origin.SessionID
		}
		if r.agentID == "" {
			r.agentID = f.origin.AgentID
		}
		if f.cost {
			r.reqModel, r.usageRaw = costFields(line)
		}
		return g.add(&r)
	}
	buf, err = lf.find(buf)
	if err != nil {
		return recs, buf, st, fmt.Errorf("reading %s: %w", f.path, err)
	}
	g.flush()
	return recs, buf, st, nil
}
