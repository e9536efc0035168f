package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/ccpipe/ccpipe/lib/mapped"
	"github.com/ccpipe/ccpipe/lib/ndjson"
)

// Options say which lines a Reader hands on and how much it decodes.
type Options struct {
	// Types keeps only records of these types. A line that cannot hold
	// one (its bytes lack every `"<type>"`) is skipped before it is
	// scanned; the type is then confirmed on the scanned header. A type
	// value written with \u escapes is therefore not found; Claude Code
	// never writes one.
	Types []string
	// Filter, when set, is asked about each line that passes Types,
	// before the line is scanned: a line it rejects is skipped unscanned
	// and counted as prefiltered, as a line without a type needle is. It
	// must keep every line its caller needs (a byte test may keep more).
	Filter func(line []byte) bool
	// Decode decodes every handed-on line into Line.Entry.
	Decode bool
	// Tools, when set, tells the lines to read with DecodeTools, which
	// checks the whole line as Scan does, in the same walk: a line it
	// reads is handed on with Line.Entry set and walked once. A line it
	// gives up on is scanned and handed on without an Entry (the caller
	// decodes it), or skipped as malformed exactly as without Tools.
	Tools func(line []byte) bool
	// Borrow: the raw values of an Entry Tools read are slices of the
	// line even when it is not Owned, valid only until the next line:
	// the caller copies what it keeps (a fact it writes out at once
	// need not be copied twice).
	Borrow bool
	// MaxLine bounds one line; 0 means ndjson.DefaultMaxLine.
	MaxLine int
	// Warn, when set, is called for each skipped line as it happens.
	Warn func(line int, err error)
	// SawEntry says the read resumes after lines of which one looked like
	// an entry (a cache read on from where it stopped): a record without a
	// "type" is then not counted as not being one (Diagnostics.NotEntries).
	SawEntry bool
}

// Line is one handed-on transcript line. It is valid until the next call
// to Next: copy Bytes to keep them (Entry is a copy already).
type Line struct {
	Bytes  []byte // without the newline, byte for byte as written
	Number int    // 1-based line number in the (decompressed) file
	Header Header
	Entry  *Entry // set when Options.Decode, or Options.Tools read the line
	// Owned: Bytes is the caller's to keep (a long line the reader does
	// not reuse), so it can be decoded without a copy (DecodeOwned).
	Owned bool
	// End is the offset in the file just past the line and its newline;
	// Partial says the line had no newline (the file's last, maybe still
	// being written). NotEntries is Diagnostics.NotEntries so far.
	End        int64
	Partial    bool
	NotEntries int
}

// Decode decodes the line, without copying it when it is Owned.
func (l *Line) Decode() (*Entry, error) {
	if l.Owned {
		return DecodeOwned(l.Bytes)
	}
	return Decode(l.Bytes)
}

// maxListed bounds the line numbers kept per problem kind, so that a file
// of garbage cannot grow the diagnostics without limit.
const maxListed = 100

// Diagnostics counts what a read saw and skipped, so nothing is lost
// silently. Aligned, UnknownBlocks and TypeMismatches cover decoded lines
// only (Decoded tells whether any were).
type Diagnostics struct {
	Path               string         `json:"path,omitempty"`
	Lines              int            `json:"lines"`
	Records            int            `json:"records"`
	Prefiltered        int            `json:"prefiltered"`
	Blank              int            `json:"blank"`
	Malformed          int            `json:"malformed"`
	MalformedLines     []int          `json:"malformed_lines"`
	TooLongLines       []int          `json:"too_long_lines"`
	IncompleteLastLine bool           `json:"incomplete_last_line"`
	UnknownTypes       map[string]int `json:"unknown_types"`
	UnknownBlocks      map[string]int `json:"unknown_blocks"`
	TypeMismatches     map[string]int `json:"type_mismatches"`
	Decoded            bool           `json:"decoded"`
	Aligned            bool           `json:"aligned"`

	// notEntries counts JSON objects without a "type": not transcript
	// entries (a cc-extract fact, another tool's NDJSON). See NotEntries.
	notEntries int
	// sawEntry is set once a line looked like an entry: from then on a
	// line the prefilter skips is not examined further.
	sawEntry bool
}

// NotEntries is the number of records that are not transcript entries
// (JSON objects without a "type"); with a prefilter, only those before
// the first line that looks like an entry are counted.
func (d Diagnostics) NotEntries() int { return d.notEntries }

// SawEntry reports whether any line looked like a transcript entry.
func (d Diagnostics) SawEntry() bool { return d.sawEntry }

// NewDiagnostics returns empty diagnostics (aligned until shown otherwise).
func NewDiagnostics() Diagnostics {
	return Diagnostics{
		MalformedLines: []int{}, TooLongLines: []int{}, UnknownTypes: map[string]int{},
		UnknownBlocks: map[string]int{}, TypeMismatches: map[string]int{}, Aligned: true,
	}
}

// Add merges o into d (the totals of several files).
func (d *Diagnostics) Add(o Diagnostics) {
	d.Lines += o.Lines
	d.Records += o.Records
	d.notEntries += o.notEntries
	d.sawEntry = d.sawEntry || o.sawEntry
	d.Prefiltered += o.Prefiltered
	d.Blank += o.Blank
	d.Malformed += o.Malformed
	d.MalformedLines = appendCapped(d.MalformedLines, o.MalformedLines...)
	d.TooLongLines = appendCapped(d.TooLongLines, o.TooLongLines...)
	d.IncompleteLastLine = d.IncompleteLastLine || o.IncompleteLastLine
	for k, v := range o.UnknownTypes {
		d.UnknownTypes[k] += v
	}
	for k, v := range o.UnknownBlocks {
		d.UnknownBlocks[k] += v
	}
	for k, v := range o.TypeMismatches {
		d.TypeMismatches[k] += v
	}
	d.Decoded = d.Decoded || o.Decoded
	d.Aligned = d.Aligned && o.Aligned
}

func appendCapped(s []int, v ...int) []int {
	for _, n := range v {
		if len(s) >= maxListed {
			break
		}
		s = append(s, n)
	}
	return s
}

// Reader streams the lines of one transcript.
type Reader struct {
	lr      *ndjson.Reader
	opts    Options
	needles [][]byte
	want    map[string]bool
	line    Line
	diag    Diagnostics
	// base and lineBase are where the input starts in the file, when it
	// is read on from an offset (ReadPlainFrom).
	base     int64
	lineBase int
}

// NewReader returns a Reader over r, which holds transcript lines (already
// decompressed: see Open).
func NewReader(r io.Reader, opts Options) *Reader {
	return newReader(ndjson.NewReaderSize(r, readBuf), opts)
}

// readBufs holds the read buffers of the readers ReadFile and Stream are
// done with. A run reads hundreds of transcripts one after another, and
// a fresh buffer for each was fresh memory each time: its pages zeroed
// and faulted in again (in a VM 10-40 µs a page), a third of cc-entries'
// faults; one reused buffer stays in place.
var readBufs = sync.Pool{New: func() any { b := make([]byte, readBuf); return &b }}

// newPooledReader is NewReader with a buffer from readBufs; release puts it
// back, once no line of the reader is in use.
func newPooledReader(r io.Reader, opts Options) (rd *Reader, release func()) {
	b := readBufs.Get().(*[]byte)
	return newReader(ndjson.NewReaderBuffer(r, *b), opts), func() { readBufs.Put(b) }
}

func newReader(lr *ndjson.Reader, opts Options) *Reader {
	if opts.MaxLine > 0 {
		lr.MaxLine = opts.MaxLine
	}
	rd := &Reader{lr: lr, opts: opts, diag: NewDiagnostics()}
	rd.diag.sawEntry = opts.SawEntry
	if len(opts.Types) > 0 {
		rd.want = map[string]bool{}
		for _, t := range opts.Types {
			rd.want[t] = true
			rd.needles = append(rd.needles, []byte(`"`+t+`"`))
		}
		lr.SkipUnless = rd.needles
	}
	return rd
}

// ErrIncomplete marks a last line that is not a whole record: a
// transcript caught mid-write.
var ErrIncomplete = ndjson.ErrIncomplete

// Next returns the next line to hand on, or io.EOF at the end. Skipped
// lines are counted in Diagnostics and passed to Options.Warn.
func (r *Reader) Next() (*Line, error) {
	for {
		b, err := r.lr.Next()
		if err == io.EOF {
			return nil, io.EOF
		}
		if err == ndjson.ErrSkipped {
			// A long line the reader searched and did not read back.
			r.diag.Lines++
			r.diag.Prefiltered++
			continue
		}
		if err != nil {
			if errors.Is(err, ndjson.ErrLineTooLong) {
				r.diag.Lines++
				r.diag.TooLongLines = appendCapped(r.diag.TooLongLines, r.lineBase+r.lr.Line())
				// ndjson's error names the line; Warn is given the number apart.
				r.warn(fmt.Errorf("%w (over %d bytes), skipped", ndjson.ErrLineTooLong, r.lr.MaxLine))
				continue
			}
			return nil, err
		}
		r.diag.Lines++
		skip := r.needles != nil && !containsAny(b, r.needles)
		if !skip && r.opts.Filter != nil && !r.opts.Filter(b) {
			// A last line cut mid-write is still told apart, as it is when
			// the filter wants it: the one line scanned that it refused.
			if r.lr.Partial() && Scan(b, &r.line.Header) != nil {
				r.skipBad(b, ErrIncomplete)
				continue
			}
			skip = true
		}
		if skip {
			switch t := bytes.TrimSpace(b); {
			case len(t) == 0:
				r.diag.Blank++
			case t[0] != '{':
				// Malformed whatever the prefilter looks for: a byte check.
				r.skipBad(b, errNotObject)
			case !r.diag.sawEntry && !bytes.Contains(b, typeKey):
				r.diag.notEntries++
				r.diag.Prefiltered++
			default:
				r.diag.sawEntry = true
				r.diag.Prefiltered++
			}
			continue
		}
		// A long line left in place for the look above is read now.
		b = r.lr.Own(b)
		l := &r.line
		*l = Line{Bytes: b, Number: r.lineBase + r.lr.Line(), Owned: r.lr.Owned(), End: r.base + r.lr.Offset(), Partial: r.lr.Partial()}
		if r.opts.Tools != nil && r.opts.Tools(b) {
			// One walk checks the line and reads it; Scan runs only on a
			// line the walk gives up on, for its verdict and its error.
			l.Entry, _ = decodeTools(b, l.Owned || r.opts.Borrow, &l.Header)
		}
		if l.Entry == nil {
			if err := Scan(b, &l.Header); err != nil {
				r.skipBad(b, err)
				continue
			}
		}
		typ := l.Header.Type
		if len(typ) == 0 {
			r.diag.notEntries++
		} else {
			r.diag.sawEntry = true
		}
		if !KnownTypes[string(typ)] {
			r.countUnknownType(typ)
		}
		if r.want != nil && !r.want[string(typ)] {
			r.diag.Prefiltered++
			continue
		}
		if r.opts.Decode {
			e, err := l.Decode()
			if err != nil {
				r.skipBad(b, err)
				continue
			}
			r.diag.Account(e)
			l.Entry = e
		}
		r.diag.Records++
		l.NotEntries = r.diag.notEntries
		return l, nil
	}
}

var (
	errNotObject = errors.New("not a JSON object")
	typeKey      = []byte(`"type"`)
)

func (r *Reader) skipBad(b []byte, err error) {
	switch {
	case len(bytes.TrimSpace(b)) == 0:
		r.diag.Blank++
	case r.lr.Partial():
		r.diag.IncompleteLastLine = true
		r.warn(ErrIncomplete)
	default:
		r.diag.Malformed++
		r.diag.MalformedLines = appendCapped(r.diag.MalformedLines, r.lineBase+r.lr.Line())
		r.warn(fmt.Errorf("malformed line skipped: %w", err))
	}
}

func (r *Reader) countUnknownType(typ []byte) {
	name := string(typ)
	if name == "" {
		name = "(none)"
	}
	if _, ok := r.diag.UnknownTypes[name]; ok || len(r.diag.UnknownTypes) < maxListed {
		r.diag.UnknownTypes[name]++
	}
}

func countUnknownBlocks(blocks []Block, m map[string]int) {
	for i := range blocks {
		b := &blocks[i]
		if b.Raw != nil {
			if _, ok := m[b.Type]; ok || len(m) < maxListed {
				m[b.Type]++
			}
		}
		countUnknownBlocks(b.Content, m)
	}
}

func (r *Reader) warn(err error) {
	if r.opts.Warn != nil {
		r.opts.Warn(r.lineBase+r.lr.Line(), err)
	}
}

// Diagnostics returns what the reader has counted so far.
func (r *Reader) Diagnostics() Diagnostics { return r.diag }

func containsAny(b []byte, needles [][]byte) bool {
	for _, n := range needles {
		if containsNeedle(b, n) {
			return true
		}
	}
	return false
}

// ReadFile reads the transcript at path (compressed or not) and calls fn
// for each handed-on line. An error from fn stops the read and is
// returned.
func ReadFile(path string, opts Options, fn func(*Line) error) (Diagnostics, error) {
	f, err := Open(path)
	if err != nil {
		d := NewDiagnostics()
		d.Path = path
		return d, err
	}
	defer f.Close()
	r, release := newPooledReader(f, opts)
	defer release()
	return r.finishFile(path, r.eachMapped(f, fn))
}

// ReadPlainFrom is ReadFile of the plain file at path, which the caller
// opened (f, at its start: what Open gives of a plain file), from offset off on: off must
// end a line, of which line is the number, and the lines before it were
// read already (Options.SawEntry says whether one looked like an entry).
// Line numbers, Line.End and the diagnostics' line lists count from
// there; the counts are the tail's alone. A cache reads a grown file's
// appended lines so.
func ReadPlainFrom(path string, f *os.File, off int64, line int, opts Options, fn func(*Line) error) (Diagnostics, error) {
	if off == 0 {
		r, release := newPooledReader(f, opts)
		defer release()
		r.lineBase = line
		return r.finishFile(path, r.eachMapped(f, fn))
	}
	// The tail is read as a stream; a line longer than the buffer is read
	// back at its size, as a file too small to map is.
	sr := io.NewSectionReader(f, off, 1<<62)
	r, release := newPooledReader(sr, opts)
	defer release()
	r.lr.UseReaderAt(sr)
	r.base, r.lineBase = off, line
	return r.finishFile(path, r.Each(fn))
}

// finishFile is a file read's diagnostics and error, as ReadFile gives them.
func (r *Reader) finishFile(path string, err error) (Diagnostics, error) {
	d := r.Diagnostics()
	d.Path = path
	var re *ReadError
	if errors.As(err, &re) {
		return d, fmt.Errorf("reading %s: %w", path, re.Err)
	}
	return d, err
}

// readBuf is the read buffer of a transcript read as a stream: bigger
// than ndjson's default, for fewer reads per line.
const readBuf = 256 << 10

// mapWindow is how much of a file is mapped at a time (a multiple of the
// page size); files under minMapped are read as streams. Tests shrink
// both.
var (
	mapWindow int64 = mapped.DefaultWindow
	minMapped int64 = 1 << 20
)

// inPlaceMin is the size from which a line across windows of a mapped
// file is looked at in place, mapped whole (ndjson's InPlaceMin), before
// it is read: a line the filter or the types skip (a 50 MB image result
// a shell run has no use for) then costs no copy and no fresh memory,
// which were a quarter of such a run's CPU. A line handed on is copied
// as before. Tests shrink it; 0 reads every line back (the slow twin).
var inPlaceMin = 1 << 20

// eachMapped is Each over in, read through memory maps when it is a plain
// file big enough to gain from them (see ReadMapped).
func (r *Reader) eachMapped(in io.Reader, fn func(*Line) error) error {
	r.lr.InPlaceMin = inPlaceMin
	return ReadMapped(in, r.lr, func() error { return r.Each(fn) })
}

// ReadMapped runs read, which reads lines from lr, with lr taking in's
// bytes from read-only memory maps when in is a plain file big enough to
// gain from them (else read runs as it is): a --types run only looks at
// most bytes once, and read(2) copied every byte from the page cache
// first, which was half of that run's CPU time. A line must be used
// before the next is read. A file cut shorter while mapped makes the next
// access to the gone pages fault (SIGBUS); that fault is turned into a
// ReadError instead of a crash.
func ReadMapped(in io.Reader, lr *ndjson.Reader, read func() error) error {
	f, ok := in.(*os.File)
	if !ok {
		return read()
	}
	// A regular file read from its start: a line longer than the buffer
	// is read back at its size, not assembled (1x the line, not 2x). A
	// pipe or device cannot be read back.
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		lr.UseReaderAt(f)
	}
	w := mapFile(f)
	if w == nil {
		return read()
	}
	defer w.w.Close()
	lr.UseWindowSource(w)
	err := w.w.Guard(read)
	if err == mapped.ErrShrank {
		return &ReadError{err}
	}
	return err
}

// fileWindows hands a mapped transcript's windows to the line reader.
// The bytes are the page cache's own, so a line handed on from a window
// must not be kept past the next line (as Line says).
type fileWindows struct {
	w *mapped.Windows
	f *os.File
}

// mapFile returns the windows of f, or nil when f is not a regular file
// big enough to gain from them (then it is read as a stream).
func mapFile(f *os.File) *fileWindows {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() < minMapped {
		return nil
	}
	// Populated: every page of a window is read, and one call maps them
	// all instead of a fault per few pages.
	return &fileWindows{mapped.New(f.Fd(), fi.Size(), mapped.Options{Window: mapWindow, Populate: true}), f}
}

// Next returns the next window. Past the size seen at open (the file
// grew), or when a map fails, the rest of the file is read as a stream
// from there.
func (fw *fileWindows) Next() ([]byte, error) {
	b, _, err := fw.w.Next()
	if err == nil {
		return b, nil
	}
	if _, err := fw.f.Seek(fw.w.Pos(), io.SeekStart); err != nil {
		return nil, err
	}
	return nil, io.EOF
}

// Range, Drop and Unrange map a long line in place (ndjson.RangeSource).
func (fw *fileWindows) Range(off, n int64) ([]byte, error) { return fw.w.Range(off, n) }
func (fw *fileWindows) Drop(n int)                         { fw.w.Drop(n) }
func (fw *fileWindows) Unrange()                           { fw.w.Unrange() }

// ReadError is a failure to read the input itself (not one of fn's).
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// Each calls fn for every remaining line. A failure to read is returned
// as a *ReadError; an error from fn is returned as it is.
func (r *Reader) Each(fn func(*Line) error) error {
	for {
		l, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &ReadError{err}
		}
		if err := fn(l); err != nil {
			return err
		}
	}
}
