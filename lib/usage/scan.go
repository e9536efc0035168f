package usage

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/pricing"
)

// The scan: cc-extract usage's fast path, which reads a transcript
// without decoding it. Lines are found by the bytes of an assistant
// record's type (assistantNeedle, through ndjson.Reader, whose SkipUnless
// search runs before a long line is held), and only the few fields usage
// needs are read out of them (ParseLine), skipping string bodies (most of
// a transcript's bytes) with a byte search. Its slow twin is the decode
// path of lib/extract (a transcript.Entry per line); scancache.go keeps
// what it read of each file.

// File is one transcript to scan: a main transcript or one of its
// subagents'.
type File struct {
	Path string
	// SessionID is the transcript's session (its file name says it): a
	// record without a sessionId is its. AgentID is the subagent whose
	// transcript it is, "" for a main transcript.
	SessionID, AgentID string
	// Cost: read the fields pricing needs (Message.RequestedModel and
	// Usage).
	Cost bool
	// Sums: the messages are for a Summer, whose cache keeps of each only
	// what a sum reads (FactsCacheName).
	Sums bool
	// Stamp, when Stamped, is the file's stat taken already (as its
	// subagent list was checked): the cached read does not stat it again.
	Stamp   cache.Stamp
	Stamped bool
}

// Opener opens a transcript for reading, an archive (.gz, .zst)
// decompressed: transcript.Open, given by the caller so that this package
// links no archive codec.
type Opener func(path string) (io.ReadCloser, error)

// Scanner scans transcripts: Scan reads a file's messages, through Cache
// when it is set (read on from where the last scan stopped, an unchanged
// file not opened).
type Scanner struct {
	Open  Opener
	Cache *cache.Store
}

// Scan reads the billed messages of one transcript, in file order, each
// message's records merged into one, with what the read skipped. buf is a
// reusable read buffer; the one to reuse next is returned.
func (sc Scanner) Scan(f File, buf []byte) ([]Message, []byte, ScanStats, error) {
	if sc.Cache != nil {
		return scanCached(sc.Cache, sc.Open, f, buf)
	}
	return scanFile(sc.Open, f, buf)
}

// ScanBuffer is the scan's read buffer: a line longer than it is searched
// for the needle on the way through and read back only if it holds it
// (ndjson.Reader.SkipUnless), so a 100 MB tool output is never held.
const ScanBuffer = 1 << 20

// MaxNamed is how many lines of one file a scan names in each of
// ScanStats' lists (its caller's warnings name as many).
const MaxNamed = 10

// Mismatch is a line counted with fields of an unexpected type.
type Mismatch struct {
	Line   int
	Fields string
}

// ScanStats counts what a scan skipped.
type ScanStats struct {
	Malformed  []int // the first lines (MaxNamed), in file order
	NMalformed int
	TooLong    []int
	Mismatched []Mismatch // lines counted with a token count of the wrong type
	// Incomplete: the last line was not ended, and did not read.
	Incomplete bool
	// NotEntries counts JSON objects without a "type" (cc-extract's own
	// output, another tool's NDJSON); SawEntry is set once a line looked
	// like an entry. Both as transcript.Reader counts them.
	NotEntries int
	SawEntry   bool
	// marks are a main transcript's assistant records' timestamps,
	// sessions and cwds, in file order (a record repeating the one before is left out): the
	// first in the --since/--until window lists its session under --sum
	// session, billable message or not. They are kept whole so that a
	// cached scan answers any window.
	marks []sessionMark
	// Recorded is what the file says of Claude Code's own figure
	// (cost-state records, compactions, copied records).
	Recorded Recorded
}

// sessionMark is an assistant record's timestamp, session and cwd.
type sessionMark struct{ ts, sid, cwd string }

// Listed is the session and cwd of the first assistant record in the
// window (inWindow), "" for none.
func (st *ScanStats) Listed(inWindow func(ts string) bool) (sid, cwd string) {
	for _, m := range st.marks {
		if inWindow(m.ts) {
			return m.sid, m.cwd
		}
	}
	return "", ""
}

// badLine counts a malformed line, or an incomplete one at the end.
func (st *ScanStats) badLine(n int, partial bool) {
	switch {
	case partial:
		st.Incomplete = true
	default:
		st.NMalformed++
		if len(st.Malformed) < MaxNamed {
			st.Malformed = append(st.Malformed, n)
		}
	}
}

// other checks a line the fast path passes over, as cheaply as
// transcript.Reader checks the lines its prefilter drops: a line that is
// not an object is malformed, and until the first entry a line without
// "type" is not a transcript entry. Of a line too long to read (head) it
// is given the first bytes.
func (st *ScanStats) other(line []byte, n int, partial bool) {
	if len(line) == 0 || line[0] != '{' {
		switch t := bytes.TrimSpace(line); {
		case len(t) == 0:
			return
		case t[0] != '{':
			st.badLine(n, partial)
			return
		}
	}
	if !st.SawEntry {
		if bytes.Contains(line, typeKey) {
			st.SawEntry = true
		} else {
			st.NotEntries++
		}
	}
}

const (
	// scanChunk is the read buffer (ScanBuffer).
	scanChunk = ScanBuffer
	// headKeep is how much of a line passed over unread is given to
	// other: a transcript entry's first bytes hold a "type".
	headKeep = 64 << 10
)

// lineFinder finds the lines of a stream that contain a pattern (without
// \r or \n: a line is searched without its CRLF's \r), through
// ndjson.Reader with the pattern as its SkipUnless.
type lineFinder struct {
	pat []byte
	fn  func(line []byte, lineno int, partial bool) error
	// skipped is told the number of a line too long to hand on.
	skipped func(lineno int)
	// other, when set, is given each line without the pattern (of one
	// too long to read, its first bytes).
	other func(line []byte, lineno int, partial bool)
	// lines is the number of lines read, once find returns.
	lines int
}

// eachLineWith calls fn for every line of r that contains pat, with its
// 1-based line number; partial is set for a final line without a newline.
// buf is a reusable buffer; the one to reuse next is returned.
func eachLineWith(r io.Reader, pat []byte, buf []byte, fn func(line []byte, lineno int, partial bool) error) ([]byte, error) {
	return (&lineFinder{pat: pat, fn: fn}).find(r, buf)
}

// find reads r to its end through buf (scanChunk bytes when it has no
// room) and returns the buffer to reuse.
func (f *lineFinder) find(r io.Reader, buf []byte) ([]byte, error) {
	if cap(buf) == 0 {
		buf = make([]byte, scanChunk)
	}
	in := r
	file, _ := r.(*os.File)
	var cr *countReader
	if file != nil {
		cr = &countReader{r: file}
		in = cr
	}
	rd := ndjson.NewReaderBuffer(in, buf)
	rd.SkipUnless = [][]byte{f.pat}
	if rb, ok := r.(*readBack); ok {
		rd.UseReaderAt(rb)
	} else if ra, ok := r.(io.ReaderAt); ok {
		if _, ok := r.(io.Seeker); ok {
			rd.UseReaderAt(ra)
		}
	}
	for {
		line, err := rd.Next()
		f.lines = rd.Line()
		switch {
		case err == io.EOF:
			if cr != nil {
				return buf, checkSize(file, cr.n)
			}
			return buf, nil
		case err == ndjson.ErrSkipped:
			if f.other != nil {
				f.other(line[:min(len(line), headKeep)], rd.Line(), rd.Partial())
			}
		case errors.Is(err, ndjson.ErrLineTooLong):
			if f.skipped != nil {
				f.skipped(rd.Line())
			}
		case err == io.ErrUnexpectedEOF:
			return buf, fmt.Errorf("%w (a truncated compressed file?)", err)
		case err != nil:
			return buf, err
		case bytes.Contains(line, f.pat):
			if err := f.fn(line, rd.Line(), rd.Partial()); err != nil {
				return buf, err
			}
		case f.other != nil:
			f.other(line, rd.Line(), rd.Partial())
		}
	}
}

var typeKey = []byte(`"type"`)

// countReader counts the bytes read, for checkSize.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readBack is a compressed transcript's stream with a ReadAt that
// decompresses the file a second time (open): lines are read back in file order,
// so the second decompression only moves forward (reopened if asked to go
// back) and costs at most one more pass over the file.
type readBack struct {
	io.Reader
	path string
	open Opener
	rc   io.ReadCloser // the second decompression, at pos
	pos  int64
}

func (b *readBack) ReadAt(p []byte, off int64) (int, error) {
	if b.rc == nil || off < b.pos {
		b.Close()
		rc, err := b.open(b.path)
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
func checkSize(file *os.File, read int64) error {
	fi, err := file.Stat()
	if err != nil {
		return err
	}
	if fi.Mode().IsRegular() && fi.Size() < read {
		return fmt.Errorf("%w (%d bytes read, %d left)", errShrank, read, fi.Size())
	}
	return nil
}

// scanFile reads the assistant records of one transcript whole, without
// a cache (Scanner.Scan).
func scanFile(open Opener, f File, buf []byte) ([]Message, []byte, ScanStats, error) {
	var s fileScan
	rc, err := open(f.Path)
	if err != nil {
		return nil, buf, s.st, err
	}
	defer rc.Close()
	var in io.Reader = rc
	if _, ok := rc.(io.ReaderAt); !ok {
		// Compressed: a long line is found again by decompressing a
		// second time, so what is held stays keepLimit, not the line cap.
		rb := &readBack{Reader: rc, path: f.Path, open: open}
		defer rb.Close()
		in = rb
	}
	buf, err = s.read(in, f, buf)
	if err != nil {
		// The open message is left out: its records may go on in what
		// could not be read.
		return s.recs, buf, s.st, fmt.Errorf("reading %s: %w", f.Path, err)
	}
	return s.finish(), buf, s.st, nil
}

// fileScan is a fast-path read of one transcript so far: the messages
// read, the last one still open (its next record may be in the lines not
// read yet), what was skipped and how many lines were read. A read can
// stop at the end of any complete line and go on from there later
// (scancache.go): the result is the same as one read of the whole file.
type fileScan struct {
	recs    []Message
	open    Message
	hasOpen bool
	st      ScanStats
	lines   int
}

// finish returns the messages, the open one closed.
func (s *fileScan) finish() []Message {
	if s.hasOpen {
		s.recs = append(s.recs, s.open)
		s.hasOpen = false
	}
	return s.recs
}

// read reads the lines of in after those already read, numbering them on.
func (s *fileScan) read(in io.Reader, f File, buf []byte) ([]byte, error) {
	st := &s.st
	base := s.lines
	g := Merger{Out: func(r *Message) error {
		s.recs = append(s.recs, *r)
		return nil
	}}
	if s.hasOpen {
		g.Resume(s.open)
	}
	var l Line
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
		if len(st.TooLong) < MaxNamed {
			st.TooLong = append(st.TooLong, base+n)
		}
	}
	other := func(line []byte, n int, partial bool) {
		st.other(line, base+n, partial)
		st.Recorded.AddLine(line)
	}
	lf := &lineFinder{pat: assistantNeedle, skipped: tooLong, other: other}
	lf.fn = func(line []byte, n int, partial bool) error {
		n += base
		if err := ParseLine(line, &l); err != nil {
			if len(bytes.TrimSpace(line)) > 0 {
				st.badLine(n, partial)
			}
			return nil
		}
		if len(l.Type) == 0 {
			st.NotEntries++
		} else {
			st.SawEntry = true
		}
		if string(l.Type) != "assistant" {
			st.Recorded.AddLine(line)
			return nil
		}
		session, mdl := intern(&sid, l.SessionID), intern(&model, l.Model)
		if session == "" {
			session = f.SessionID
		}
		// (Only a main transcript lists its session: take reads no
		// subagent's marks.)
		if n := len(st.marks); f.AgentID == "" && (n == 0 || st.marks[n-1].ts != string(l.Timestamp) || st.marks[n-1].sid != session || st.marks[n-1].cwd != string(l.Cwd)) {
			st.marks = append(st.marks, sessionMark{ts: string(l.Timestamp), sid: session, cwd: intern(&cwd, l.Cwd)})
		}
		// The billing rule, but for the usage object: a record whose usage
		// is not an object is named below before it is left out.
		rec := pricing.Record{Type: "assistant", Model: mdl, UsageObject: true, APIError: l.APIError,
			SessionID: session, RequestSessionID: string(l.RequestSessionID)}
		if !rec.Billable() {
			return nil
		}
		if len(l.Bad) > 0 && len(st.Mismatched) < MaxNamed {
			// Sorted, as the decode path names them.
			slices.Sort(l.Bad)
			st.Mismatched = append(st.Mismatched, Mismatch{n, strings.Join(slices.Compact(l.Bad), ", ")})
		}
		if !l.HasUsage {
			return nil
		}
		if rec.Copied() {
			st.Recorded.Copied++
		}
		r := Message{MessageID: string(l.MessageID), RequestID: string(l.RequestID), RequestRef: string(l.RequestRef),
			UUID: string(l.UUID), Timestamp: string(l.Timestamp), Model: mdl,
			SessionID: rec.Owner(), AgentID: intern(&aid, l.AgentID), Cwd: intern(&cwd, l.Cwd), Tokens: l.Tokens, Copied: rec.Copied()}
		b := r.Bill()
		r.Key = KeyOf(&b)
		if r.AgentID == "" {
			r.AgentID = f.AgentID
		}
		if f.Cost {
			r.RequestedModel, r.Usage = CostFields(line)
		}
		return g.Add(&r)
	}
	buf, err := lf.find(in, buf)
	s.lines = base + lf.lines
	s.open, s.hasOpen = g.Open()
	return buf, err
}
