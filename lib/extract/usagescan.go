package extract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

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
// slices point into the line.
type usageLine struct {
	typ, uuid, ts, sid, aid, reqID, reqRef, cwd, msgID, model []byte
	u                                                         TokenUsage
	hasUsage, apiError                                        bool
	// badCount is set when a token count is neither a number nor null
	// (it then reads 0).
	badCount bool
}

// errWalk is wrapped by the walker's errors: the line is not the JSON
// object it claims to be.
var errWalk = errors.New("malformed record")

type walker struct {
	b []byte
	i int
	// badNum is set when num met a value that is not a number (nor null).
	badNum bool
}

func (p *walker) fail(what string) error {
	return fmt.Errorf("%w: %s at byte %d", errWalk, what, p.i)
}

func (p *walker) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// enter consumes the '{' of an object.
func (p *walker) enter() error {
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return p.fail("expected an object")
	}
	p.i++
	return nil
}

// key returns the next key of the object being walked and leaves p at its
// value; ok is false at the closing '}'.
func (p *walker) key() (key []byte, ok bool, err error) {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ',' {
		p.i++
		p.ws()
	}
	if p.i >= len(p.b) {
		return nil, false, p.fail("unterminated object")
	}
	if p.b[p.i] == '}' {
		p.i++
		return nil, false, nil
	}
	s, e, _, err := p.strBounds()
	if err != nil {
		return nil, false, err
	}
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != ':' {
		return nil, false, p.fail("expected ':'")
	}
	p.i++
	p.ws()
	return p.b[s:e], true, nil
}

// strBounds consumes a string and returns the bounds of its body. esc is
// set when a quote inside was escaped (other escapes are not looked for).
func (p *walker) strBounds() (start, end int, esc bool, err error) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return 0, 0, false, p.fail("expected a string")
	}
	start = p.i + 1
	j := start
	for {
		k := bytes.IndexByte(p.b[j:], '"')
		if k < 0 {
			p.i = len(p.b)
			return 0, 0, false, p.fail("unterminated string")
		}
		j += k
		// The quote is escaped when an odd run of backslashes precedes it.
		n := 0
		for m := j - 1; m >= start && p.b[m] == '\\'; m-- {
			n++
		}
		if n > 0 {
			esc = true
		}
		if n%2 == 0 {
			p.i = j + 1
			return start, j, esc, nil
		}
		j++
	}
}

// str reads a string value into *dst; a value of another type is skipped.
func (p *walker) str(dst *[]byte) error {
	if p.i < len(p.b) && p.b[p.i] != '"' {
		return p.skip()
	}
	s, e, _, err := p.strBounds()
	if err != nil {
		return err
	}
	if bytes.IndexByte(p.b[s:e], '\\') < 0 {
		*dst = p.b[s:e]
		return nil
	}
	var v string
	if err := json.Unmarshal(p.b[s-1:e+1], &v); err != nil {
		return p.fail("invalid escape")
	}
	*dst = []byte(v)
	return nil
}

// num reads a number value into *dst; a value of another type reads 0.
func (p *walker) num(dst *int64) error {
	start := p.i
	if err := p.skip(); err != nil {
		return err
	}
	lit := p.b[start:p.i]
	if len(lit) == 0 || (lit[0] != '-' && (lit[0] < '0' || lit[0] > '9')) {
		*dst = 0
		p.badNum = p.badNum || string(lit) != "null"
		return nil
	}
	if n, err := strconv.ParseInt(string(lit), 10, 64); err == nil {
		*dst = n
		return nil
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return p.fail("invalid number")
	}
	*dst = int64(f)
	return nil
}

func (p *walker) boolean(dst *bool) error {
	start := p.i
	if err := p.skip(); err != nil {
		return err
	}
	*dst = string(p.b[start:p.i]) == "true"
	return nil
}

// skip consumes one value of any type.
func (p *walker) skip() error {
	if p.i >= len(p.b) {
		return p.fail("expected a value")
	}
	switch p.b[p.i] {
	case '"':
		_, _, _, err := p.strBounds()
		return err
	case '{', '[':
		depth := 0
		for p.i < len(p.b) {
			switch p.b[p.i] {
			case '"':
				if _, _, _, err := p.strBounds(); err != nil {
					return err
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					p.i++
					return nil
				}
			}
			p.i++
		}
		return p.fail("unterminated value")
	}
	start := p.i
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if p.i == start {
				return p.fail("expected a value")
			}
			return nil
		}
		p.i++
	}
	return p.fail("unterminated value")
}

// scanUsageLine reads the usage fields of one transcript line.
func scanUsageLine(b []byte, l *usageLine) error {
	*l = usageLine{}
	p := walker{b: b}
	if err := p.enter(); err != nil {
		return err
	}
	for {
		k, ok, err := p.key()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch string(k) {
		case "type":
			err = p.str(&l.typ)
		case "uuid":
			err = p.str(&l.uuid)
		case "timestamp":
			err = p.str(&l.ts)
		case "sessionId":
			err = p.str(&l.sid)
		case "agentId":
			err = p.str(&l.aid)
		case "requestId":
			err = p.str(&l.reqID)
		case "requestRef":
			err = p.str(&l.reqRef)
		case "cwd":
			err = p.str(&l.cwd)
		case "isApiErrorMessage":
			err = p.boolean(&l.apiError)
		case "message":
			err = p.message(l)
		default:
			err = p.skip()
		}
		if err != nil {
			return err
		}
	}
	p.ws()
	if p.i != len(p.b) {
		return p.fail("data after the object")
	}
	l.badCount = p.badNum
	return nil
}

func (p *walker) message(l *usageLine) error {
	if p.i < len(p.b) && p.b[p.i] != '{' {
		return p.skip()
	}
	if err := p.enter(); err != nil {
		return err
	}
	for {
		k, ok, err := p.key()
		if err != nil || !ok {
			return err
		}
		switch string(k) {
		case "id":
			err = p.str(&l.msgID)
		case "model":
			err = p.str(&l.model)
		case "usage":
			err = p.usage(l)
		default:
			err = p.skip()
		}
		if err != nil {
			return err
		}
	}
}

func (p *walker) usage(l *usageLine) error {
	if p.i < len(p.b) && p.b[p.i] != '{' {
		return p.skip()
	}
	if err := p.enter(); err != nil {
		return err
	}
	l.hasUsage = true
	for {
		k, ok, err := p.key()
		if err != nil || !ok {
			return err
		}
		switch string(k) {
		case "input_tokens":
			err = p.num(&l.u.InputTokens)
		case "output_tokens":
			err = p.num(&l.u.OutputTokens)
		case "cache_read_input_tokens":
			err = p.num(&l.u.CacheReadInputTokens)
		case "cache_creation_input_tokens":
			err = p.num(&l.u.CacheCreationInputTokens)
		default:
			err = p.skip()
		}
		if err != nil {
			return err
		}
	}
}

// scanStats counts what a fast-path read skipped.
type scanStats struct {
	malformed  []int
	tooLong    []int
	mismatched []int // lines counted with a token count of the wrong type
	incomplete bool
}

const (
	scanChunk = 1 << 20
	maxLine   = 1 << 30
	// keepLimit is how much of a line still without a match is held in
	// memory; past it, a file read with ReadAt drops the line's head and
	// reads it back only if the match comes after all.
	keepLimit = 4 << 20
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
	start   int   // data is buf[start:end]
	end     int   //
	from    int   // no match begins in buf[start:from]
	base    int64 // stream offset of buf[0]
	lines   int   // newlines before buf[start]
	eof     bool
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
	if cap(buf) < 16 {
		buf = make([]byte, scanChunk)
	}
	f := &lineFinder{r: r, pat: pat, buf: buf[:cap(buf)], keep: keep, fn: fn, skipped: skipped, lost: -1}
	if ra, ok := r.(io.ReaderAt); ok {
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
		if f.eof {
			return true, false, nil
		}
		k := bytes.LastIndexByte(data, '\n') + 1
		f.lines += bytes.Count(data[:k], nl)
		f.start += k
		f.from = max(f.start, f.end-len(f.pat)+1)
		if f.end-f.start > f.keep && f.ra != nil || f.end-f.start > maxLine {
			// A long line without the pattern so far: keep only the bytes
			// a match could start in.
			f.lost, f.matched, f.tooLong = f.base+int64(f.start), false, f.ra == nil
			f.start = f.from
		}
		return false, true, nil
	}
	i += f.from - f.start
	ls := bytes.LastIndexByte(data[:i], '\n') + 1
	le := bytes.IndexByte(data[i:], '\n')
	if le < 0 && !f.eof {
		f.lines += bytes.Count(data[:ls], nl)
		f.start += ls
		f.from = f.start + i - ls // found again on the next step, with its line end
		if f.end-f.start > f.keep && f.ra != nil || f.end-f.start > maxLine {
			f.lost, f.matched, f.tooLong = f.base+int64(f.start), true, f.ra == nil
			f.start = f.end
		}
		return false, true, nil
	}
	n := f.lines + bytes.Count(data[:ls], nl) + 1
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
	if f.matched && (f.tooLong || f.base+int64(stop)-f.lost > maxLine) {
		if f.skipped != nil {
			f.skipped(n)
		}
	} else if f.matched {
		line := make([]byte, f.base+int64(stop)-f.lost)
		if _, err := f.ra.ReadAt(line, f.lost); err != nil && err != io.EOF {
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
	nl = []byte{'\n'}
	cr = []byte{'\r'}
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
		f.shift(make([]byte, 2*len(f.buf)))
	} else {
		f.shift(f.buf)
	}
	m, err := io.ReadFull(f.r, f.buf[f.end:])
	f.end += m
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		f.eof = true
	case err != nil:
		return err
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
		if len(st.tooLong) < 100 {
			st.tooLong = append(st.tooLong, n)
		}
	}
	buf, err = findLinesSkipping(rc, assistantType, buf, keepLimit, func(line []byte, n int, partial bool) error {
		if err := scanUsageLine(line, &l); err != nil {
			if partial {
				st.incomplete = true
			} else if len(st.malformed) < 100 {
				st.malformed = append(st.malformed, n)
			}
			return nil
		}
		if string(l.typ) != "assistant" || !l.hasUsage || l.apiError || string(l.model) == "<synthetic>" {
			return nil
		}
		if l.badCount && len(st.mismatched) < 100 {
			st.mismatched = append(st.mismatched, n)
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
	}, tooLong)
	if err != nil {
		return recs, buf, st, fmt.Errorf("reading %s: %w", f.path, err)
	}
	g.flush()
	return recs, buf, st, nil
}
