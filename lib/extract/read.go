package extract

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/sequencer"
	"github.com/ccpipe/ccpipe/lib/transcript"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// Wants reports whether a line can hold a record this kind reads: a cheap
// byte test to run before decoding an entry. It is the test the reader of
// files runs (filter): the record types, the kind's needles, then the
// kind's own line filter, which knows the tool calls still waiting for a
// result (a shell run skips the results of every other tool, a 100 MB
// image among them). That filter sees the lines fed before: ask Wants of
// each line once, in order, and feed the lines it wants.
func (x *Extractor) Wants(line []byte) bool {
	if !containsAnyFast(line, x.typeNeedles) {
		return false
	}
	if !x.wantsSet {
		x.wants, x.wantsSet = x.filter(x.h), true
	}
	return x.wants == nil || x.wants(line)
}

// Decode decodes a line as far as this kind needs: the tool kinds read
// only the fields a call's join uses (transcript.DecodeTools), and decode
// the whole line only when that read gives up on it.
func (x *Extractor) Decode(line []byte) (*transcript.Entry, error) {
	return x.decode(&transcript.Line{Bytes: line})
}

func (x *Extractor) decode(l *transcript.Line) (*transcript.Entry, error) {
	if e := l.Entry; e != nil && x.lazyEnough(e) {
		return e, nil // read by the reader (transcript.Options.Tools)
	}
	if lazy := x.lazy(); lazy != nil && l.Entry == nil && lazy(l.Bytes) {
		if e, ok := l.DecodeTools(); ok && x.lazyEnough(e) {
			return e, nil
		}
	}
	return l.Decode()
}

// file is one transcript to read: a main transcript or one of its
// subagents'.
type file struct {
	path   string
	origin Origin
	cost   bool // usage --cost: read the fields pricing needs
	// sums: usage --sum, whose cache keeps of each message only what a
	// sum reads (usage.FactsCacheName)
	sums bool
	// stamp, when stamped, is the file's stat taken as its subagent list
	// was checked: the cached read does not stat it again.
	stamp   cache.Stamp
	stamped bool
	// looked: fileJob.queue found the file regular (stamp) and not
	// unchanged in the cache; readCached need not look again.
	looked bool
}

// files lists a session's transcripts: the main one, then with
// Options.Subagents its subagents', oldest first. warn is set when the
// subagents could not be listed.
func (x *Extractor) files(path string, pre *prepped) (out []file, warn string) {
	sid := transcript.SessionID(path)
	cost, sums := x.opts.Prices != nil, x.opts.Sum != ""
	out = []file{{path: path, origin: Origin{Path: path, SessionID: sid}, cost: cost, sums: sums}}
	if pre != nil && pre.main.err == nil && pre.main.mode == 0 {
		out[0].stamp, out[0].stamped = pre.main.stamp, true
	}
	if !x.opts.Subagents {
		return out, ""
	}
	var subDir *statResult
	if pre != nil {
		subDir = &pre.subDir
	}
	subs, stamps, err := x.subagents(path, subDir)
	if err != nil {
		warn = fmt.Sprintf("listing subagents of %s: %v", path, err)
	}
	for i, s := range subs {
		f := file{path: s.Path, origin: Origin{Path: s.Path, SessionID: sid, AgentID: s.AgentID}, cost: cost, sums: sums}
		if i < len(stamps) {
			f.stamp, f.stamped = stamps[i], true
		}
		out = append(out, f)
	}
	return out, warn
}

// prepped is a transcript listed for a cached usage read, with what its
// lister found: its stat, its subagents dir's, and the warnings given
// before it (they go with its first file, as without the lister).
type prepped struct {
	path         string
	main, subDir statResult
	early        []string
}

type statResult struct {
	stamp cache.Stamp
	mode  fs.FileMode
	err   error
}

func statOf(path string) statResult {
	st, mode, err := cache.StatPath(path)
	return statResult{st, mode, err}
}

// prep stats a transcript, and its subagents dir under --subagents.
func (x *Extractor) prep(path string) *prepped {
	p := &prepped{path: path, main: statOf(path), early: x.early.take()}
	if x.opts.Subagents {
		p.subDir = statOf(layout.SubagentsDirOf(path))
	}
	return p
}

// ReadTranscript reads the transcript at path (plain, .gz or .zst) and,
// with Options.Subagents, its subagent transcripts, and extracts their
// facts.
func (x *Extractor) ReadTranscript(ctx context.Context, path string) error {
	return x.ReadTranscripts(ctx, func(add func(string) error) error { return add(path) })
}

// ReadTranscripts reads every transcript produce adds, several at once
// (Options.Workers), and emits their facts in input order, file by file,
// from one goroutine (lib/sequencer's): output does not depend on timing.
// produce runs meanwhile and must not emit. A transcript that cannot
// be read is reported through Options.Warn and skipped; the error
// returned then wraps ErrUnreadable. Call Close afterwards.
func (x *Extractor) ReadTranscripts(ctx context.Context, produce func(add func(path string) error) error) error {
	var err error
	if x.usage != nil {
		bufs := &sync.Pool{New: func() any { return new([]byte) }}
		err = x.readInOrder(ctx, produce, 4, func(f file) job { return &usageJob{x: x, f: f, bufs: bufs} })
	} else {
		// Workers copy a copy: x.unreadable changes as files are taken.
		tmpl := *x
		tmpl.h, tmpl.unreadable, tmpl.copies = nil, 0, copies{}
		q := newFileQueues()
		// Many files may be read ahead: the budget of their facts, not
		// their number, bounds memory.
		err = x.readInOrder(ctx, produce, 512, func(f file) job {
			return &fileJob{x: x, tmpl: &tmpl, q: q, f: f}
		})
	}
	if err == nil {
		// A cancellation that came while the last files were read shows
		// as files that could not be read: it is the cause, say it.
		err = ctx.Err()
	}
	if err == nil && x.unreadable > 0 {
		err = fmt.Errorf("%w: %d", ErrUnreadable, x.unreadable)
	}
	return err
}

// Warn reports msg through Options.Warn. Called by ReadTranscripts'
// produce (a dir it could not list), msg comes in input order: after the
// warnings of the transcripts added before, before those added after.
func (x *Extractor) Warn(msg string) {
	if !x.early.add(msg) {
		x.opts.Warn(msg)
	}
}

// earlyWarnings are the warnings of produce not yet given: the next
// transcript added takes them.
type earlyWarnings struct {
	mu      sync.Mutex
	reading bool
	msgs    []string
}

func (e *earlyWarnings) start() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reading = true
}

// stop ends a read and gives the warnings left (the read failed before
// they were taken).
func (e *earlyWarnings) stop(warn func(string)) {
	e.mu.Lock()
	msgs := e.msgs
	e.reading, e.msgs = false, nil
	e.mu.Unlock()
	for _, m := range msgs {
		warn(m)
	}
}

// add keeps msg when a read runs and reports whether it did.
func (e *earlyWarnings) add(msg string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.reading {
		e.msgs = append(e.msgs, msg)
	}
	return e.reading
}

func (e *earlyWarnings) take() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	m := e.msgs
	e.msgs = nil
	return m
}

// job is one transcript read and taken in input order.
type job interface {
	// warnFirst adds a warning to give before the file's own.
	warnFirst(msg string)
	// queue hands the job to seq: to be read on a worker, or done at
	// once (a file the cache holds unchanged).
	queue(seq *sequencer.Sequencer[job]) error
	// take hands on what the read found, on seq's emitting goroutine, as
	// the read goes or once it is done.
	take(ctx context.Context) error
}

// readInOrder reads the transcripts produce adds on Options.Workers
// goroutines and takes them in input order (lib/sequencer). At most
// queue*workers files are read ahead of the one being taken.
func (x *Extractor) readInOrder(ctx context.Context, produce func(add func(string) error) error, queue int, newJob func(file) job) error {
	workers := x.opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	x.early.start()
	defer x.early.stop(x.opts.Warn) // what produce warned of after its last transcript
	seq := sequencer.Start(ctx, workers, queue, func(j job) error { return j.take(ctx) })
	addFiles := func(path string, pre *prepped) error {
		files, warn := x.files(path, pre)
		for i, f := range files {
			j := newJob(f)
			if i == 0 {
				var early []string
				if pre != nil {
					early = pre.early // taken as it was listed
				} else {
					early = x.early.take()
				}
				for _, w := range early {
					j.warnFirst(w)
				}
				if warn != "" {
					j.warnFirst(warn)
				}
			}
			if err := j.queue(seq); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	if x.usage != nil && x.opts.Cache != nil {
		// A warm run: one goroutine lists and stats the files while the
		// cache's store loads, this one looks them up in it.
		preps := make(chan *prepped, 1024)
		listed := make(chan error, 1)
		go func() {
			defer close(preps)
			listed <- produce(func(path string) error {
				select {
				case preps <- x.prep(path):
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
		}()
		for p := range preps {
			if err == nil {
				if err = addFiles(p.path, p); err != nil {
					cancel() // the lister stops too
				}
			}
		}
		if lerr := <-listed; err == nil {
			err = lerr
		}
	} else {
		err = produce(func(path string) error { return addFiles(path, nil) })
	}
	if err != nil {
		cancel() // the files queued are not taken
	}
	serr := seq.Wait()
	// The cause beats its symptom: a producer's error (a dir that cannot
	// be listed) stops the reads, which then see only "context
	// canceled".
	if err != nil && !errors.Is(err, context.Canceled) && (serr == nil || errors.Is(serr, context.Canceled)) {
		return err
	}
	return serr
}

// fileJob is one transcript read through the typed entry reader by a
// handler of its own (fork): the facts and warnings it gives are queued
// here and taken in order. The file being taken streams: its worker waits
// once its queue holds maxQueued bytes of facts. The files read ahead of
// it share a budget of maxAhead bytes; their workers wait when it is
// spent. So a big file holds its worker, not the others, and memory stays
// bounded however many files are read ahead.
type fileJob struct {
	x     *Extractor // takes the facts
	tmpl  *Extractor // what workers fork
	q     *fileQueues
	f     file
	first []string // warnings given before the file's own
	// The worker batches what it gives in local (no lock) and queues
	// the batch now and then.
	local     []item
	localSize int
	// Under q.mu:
	items      []item
	size       int
	head       bool // being taken: its size is not in q.ahead
	done       bool
	err        error // the read stopped (cancelled)
	unreadable int
	copies     copies
	ready      chan struct{} // items were queued or the read is done (a streamed job's)
	// entry is the file's, when queue found it unchanged in the cache;
	// one is what each of its stamped facts is handed on in.
	entry *cache.Entry
	one   encodedFact
}

// fileQueues is what the fileJobs of one ReadTranscripts share.
type fileQueues struct {
	mu    sync.Mutex
	room  sync.Cond // the caller took items, or the read stopped
	ahead int       // bytes queued by the files not being taken
}

func newFileQueues() *fileQueues {
	q := &fileQueues{}
	q.room.L = &q.mu
	return q
}

// full reports whether j's worker must wait. Under q.mu.
func (q *fileQueues) full(j *fileJob) bool {
	if j.head {
		return j.size >= maxQueued
	}
	return q.ahead >= maxAhead
}

// item is a fact or, when fact is nil, a warning.
type item struct {
	fact any
	warn string
}

// Tests shrink these to make workers wait.
var (
	// maxQueued bounds the facts the file being taken has queued, and
	// maxAhead those of the files read ahead of it, all together
	// (estimated by factSize).
	maxQueued = 1 << 20
	maxAhead  = 8 << 20
	// batchItems and batchSize bound a worker's batch: the caller wakes
	// once per batch, not once per fact.
	batchItems = 64
	batchSize  = 64 << 10
	// queuedHook, when set, sees the bytes queued ahead, and those of the
	// file being taken, each time a batch is queued.
	queuedHook func(ahead, head int)
)

func (j *fileJob) warnFirst(msg string) { j.first = append(j.first, msg) }

// queue finishes the job at once, on the producer's goroutine, when the
// cache holds the file unchanged: take hands its record on (takeCached),
// with no worker, no handler and no queue of facts between. Else the job
// streams: it is taken as it is read.
func (j *fileJob) queue(seq *sequencer.Sequencer[job]) error {
	if c := j.x.opts.Cache; c != nil && !j.x.noPrefilter && takeInPlace {
		// A subagent's stamp is its session's listing's, checked then.
		st, regular := j.f.stamp, j.f.stamped
		if !regular {
			var mode fs.FileMode
			var err error
			st, mode, err = cache.StatPath(j.f.path)
			regular = err == nil && mode.IsRegular()
		}
		if regular {
			if e, ok := c.Unchanged(j.f.path, st); ok {
				j.entry = e
				return seq.Done(j)
			}
			j.f.stamp, j.f.stamped, j.f.looked = st, true, true
		}
	}
	j.ready = make(chan struct{}, 1)
	return seq.Stream(j, func(ctx context.Context, _ int) { j.run(ctx) })
}

// takeInPlace turns fileJob.queue's finish at once on (tests turn it off
// for its slow twin: readCached on a worker, which copies each record).
var takeInPlace = true

// takeCached hands on the record of a file the cache holds unchanged, as
// readCached would on a worker, read in place from the store's map under
// its Guard: each fact is written out as it is read and none is kept
// (lib/cli's output copies what it holds). A record that does not open
// (a file it depends on changed) has the file read here, as on a worker.
func (j *fileJob) takeCached(ctx context.Context) error {
	x, c := j.x, j.x.opts.Cache
	read := false
	err := c.Guard(func() error {
		rec, ok := openRecord(j.entry.Data, j.f, false)
		if !ok {
			read = true
			return nil
		}
		err := x.replay(ctx, rec.events, x.give, &j.one)
		if err == nil {
			x.copies.addRecorded(rec.copies)
		}
		return x.replayed(err, j.f, c)
	})
	if err != nil || !read {
		return err
	}
	y := j.tmpl.fork(x.give, x.opts.Warn)
	j.f.looked = true // and its entry is not unchanged: Lookup says what it is
	err = y.readFile(ctx, j.f)
	x.unreadable += y.unreadable
	x.copies.add(&y.copies)
	return err
}

func (j *fileJob) run(ctx context.Context) {
	unreadable := 0
	var cp copies
	err := ctx.Err() // stopped: the files still queued are not opened
	if err == nil {
		emit := func(v any) error { return j.give(ctx, item{fact: v}, factSize(v)) }
		warn := func(msg string) { _ = j.give(ctx, item{warn: msg}, len(msg)) }
		y := j.tmpl.fork(emit, warn)
		err = y.readFile(ctx, j.f)
		if err == nil {
			err = j.flush(ctx)
		}
		unreadable, cp = y.unreadable, y.copies
	}
	j.q.mu.Lock()
	j.done, j.err, j.unreadable, j.copies = true, err, unreadable, cp
	j.q.mu.Unlock()
	signal(j.ready)
}

// give adds a fact or a warning to the worker's batch and queues the
// batch when it is big enough.
func (j *fileJob) give(ctx context.Context, it item, size int) error {
	j.local = append(j.local, it)
	j.localSize += size
	if len(j.local) < batchItems && j.localSize < batchSize {
		return nil
	}
	return j.flush(ctx)
}

// flush queues the worker's batch, then waits while there is no room.
// It fails once ctx is done: the read stops there.
func (j *fileJob) flush(ctx context.Context) error {
	if err := ctx.Err(); err != nil || len(j.local) == 0 {
		return err
	}
	q := j.q
	q.mu.Lock()
	j.items = append(j.items, j.local...)
	j.size += j.localSize
	if !j.head {
		q.ahead += j.localSize
	}
	if queuedHook != nil {
		if j.head {
			queuedHook(q.ahead, j.size)
		} else {
			queuedHook(q.ahead, 0)
		}
	}
	signal(j.ready)
	if q.full(j) {
		// The caller's error or a signal stops the wait too.
		stop := context.AfterFunc(ctx, func() {
			q.mu.Lock()
			q.room.Broadcast()
			q.mu.Unlock()
		})
		for ctx.Err() == nil && q.full(j) {
			q.room.Wait()
		}
		stop()
	}
	q.mu.Unlock()
	clear(j.local)
	j.local, j.localSize = j.local[:0], 0
	return ctx.Err()
}

// take gives the file's warnings and facts as they are queued, until its
// read is done.
func (j *fileJob) take(ctx context.Context) error {
	x, q := j.x, j.q
	for _, w := range j.first {
		x.opts.Warn(w)
	}
	if j.entry != nil {
		return j.takeCached(ctx)
	}
	var batch []item
	for {
		q.mu.Lock()
		if !j.head {
			j.head = true
			q.ahead -= j.size
		}
		batch, j.items = j.items, batch[:0]
		j.size = 0
		done := j.done
		q.room.Broadcast()
		q.mu.Unlock()
		for i := range batch {
			it := &batch[i]
			if it.fact == nil {
				x.opts.Warn(it.warn)
			} else if err := x.give(it.fact); err != nil {
				return err
			}
			*it = item{}
		}
		if len(batch) > 0 {
			continue
		}
		if done {
			break
		}
		select {
		case <-j.ready:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	x.unreadable += j.unreadable
	x.copies.add(&j.copies)
	return j.err
}

// signal wakes the side waiting on ch, if it waits; a wake-up sent while
// none waits is kept for the next wait.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// fork returns an Extractor of x's kind with a handler of its own,
// emitting and warning through emit and warn: one file's reader on a
// worker. What spans files stays with x: files --unique facts are
// summarized by x.give.
func (x *Extractor) fork(emit func(any) error, warn func(string)) *Extractor {
	y := *x
	y.emit, y.opts.Warn = emit, warn
	y.copies = copies{}
	y.opts.Unique = false
	y.h = y.newHandler()
	return &y
}

// give hands on a fact a file's handler emitted, in input order.
func (x *Extractor) give(v any) error {
	if x.opts.Unique {
		if h, ok := x.h.(*toolsKind); ok && h.unique != nil {
			if f, ok := fileOf(v); ok {
				h.summarize(f)
				return nil
			}
		}
	}
	return x.emit(v)
}

// factSize estimates the bytes a fact holds: its texts, and a little for
// the rest.
func factSize(v any) int {
	const head = 256
	switch f := v.(type) {
	case Prompt:
		return head + len(f.Text)
	case Text:
		return head + len(f.Text)
	case Turn:
		return head + len(f.Text)
	case Tool:
		return head + len(f.Input) + lenp(f.Result) + len(f.resultJSON)
	case Shell:
		return head + len(f.Command) + lenp(f.Output) + lenp(f.Description)
	case File:
		return head + len(f.Path)
	case Subagent:
		return head + lenp(f.Prompt) + lenp(f.Result) + lenp(f.Description)
	case Failure:
		return head + len(f.Message)
	case *Compaction:
		return head + lenp(f.Summary)
	case *encodedFact:
		return head + len(f.line)
	case plainFact:
		return head + len(f)
	}
	return head
}

func lenp(s *string) int {
	if s == nil {
		return 0
	}
	return len(*s)
}

// readFile reads one transcript through the typed entry reader (or,
// with Options.Cache, what the cache kept of it and the lines appended
// since: kindcache.go). A file that cannot be read is reported and
// counted, not fatal.
func (x *Extractor) readFile(ctx context.Context, f file) error {
	if c := x.opts.Cache; c != nil && !x.noPrefilter {
		return x.readCached(ctx, f, c)
	}
	return x.readPlain(ctx, f)
}

// readPlain reads one transcript through the typed entry reader.
func (x *Extractor) readPlain(ctx context.Context, f file) error { return x.readFrom(ctx, f, nil) }

// readAt is where a read starts in a plain file already open: a cache's
// checkpoint (kindcache.go), with the counts of the lines before it.
type readAt struct {
	fh                       *os.File
	off                      int64
	line, n, warned, notSeen int
}

// readFrom is readPlain from at on (the whole file when nil). With
// x.mark set, it is told each line handed on, after the handler took it.
func (x *Extractor) readFrom(ctx context.Context, f file, at *readAt) error {
	r := x.newFileRead(ctx, f)
	borrow := r.options().Borrow
	take := func(l *transcript.Line) error {
		e, derr := x.decode(l)
		x.borrowed = borrow && e != nil && e == l.Entry && !l.Owned
		err := r.take(l.Number, e, derr)
		x.borrowed = false
		if err != nil || x.mark == nil {
			return err
		}
		x.mark(r, l)
		return nil
	}
	var td transcript.Diagnostics
	var err error
	if at == nil {
		td, err = transcript.ReadFile(f.path, r.options(), take)
	} else {
		opts := r.options()
		opts.SawEntry = at.off > 0
		r.n, r.warned, r.notBase, r.lineBase = at.n, at.warned, at.notSeen, at.line
		td, err = transcript.ReadPlainFrom(f.path, at.fh, at.off, at.line, opts, take)
	}
	if err == nil && r.ferr == nil && x.mark != nil && r.n > 0 {
		// The end of the read, before what ends the file: End -1 says
		// the file's end (kindcache.go).
		x.mark(r, &transcript.Line{Number: td.Lines + r.lineBase, End: -1, NotEntries: td.NotEntries()})
	}
	d := diagOf(td)
	d.notEntries += r.notBase
	if r.ferr != nil {
		return r.ferr
	}
	if err == nil {
		err = notTranscript(f.path, d.notEntries, d.sawEntry, d.malformed)
	}
	if err == nil || !errors.Is(err, transcript.ErrNotTranscript) {
		x.sayAll(r.held)
		if r.warned > maxFileWarnings {
			x.opts.Warn(fmt.Sprintf("%s: %d more warnings not shown (%d in all)", f.path, r.warned-maxFileWarnings, r.warned))
		}
	}
	if err == nil {
		x.strays(f.path, d.notEntries)
	}
	if err != nil {
		x.unreadable++
		x.opts.Warn(err.Error())
	}
	return x.h.endFile()
}

// readDiag is what readFile needs of a read's transcript.Diagnostics.
type readDiag struct {
	lines, notEntries, malformed int
	sawEntry                     bool
}

func diagOf(d transcript.Diagnostics) readDiag {
	return readDiag{lines: d.Lines, notEntries: d.NotEntries(), malformed: d.Malformed, sawEntry: d.SawEntry()}
}

// fileRead is one transcript being read: what its lines do to the kind's
// handler and to the warnings, whether they come from the file or from
// the cache (one path for both: take and warn).
type fileRead struct {
	x      *Extractor
	ctx    context.Context
	f      file
	o      Origin
	n      int   // lines handed on
	ferr   error // an error of the extraction, not of the read
	warned int   // per file: the first ten lines named, the rest counted
	// Until the file has shown an entry its warnings wait: a file that is
	// no transcript at all gets one error, not a warning per line.
	held []string
	// notBase counts the records without a "type" before the read's
	// start (readAt), and lineBase its lines.
	notBase, lineBase int
}

func (x *Extractor) newFileRead(ctx context.Context, f file) *fileRead {
	x.copies.sawSession(f.origin.SessionID)
	return &fileRead{x: x, ctx: ctx, f: f, o: f.origin}
}

func (r *fileRead) say(msg string) {
	if r.held != nil || r.n == 0 {
		r.held = append(r.held, msg)
		return
	}
	r.x.opts.Warn(msg)
}

// warn is a skipped line's warning.
func (r *fileRead) warn(line int, err error) {
	if r.warned++; r.warned <= maxFileWarnings {
		r.say(fmt.Sprintf("%s:%d: %v", r.f.path, line, err))
	}
}

// take hands a line's entry (or the error of its decode) to the handler.
func (r *fileRead) take(line int, e *transcript.Entry, derr error) error {
	x := r.x
	if r.n++; r.n == 1 {
		x.sayAll(r.held)
		r.held = nil
	}
	if r.n%1024 == 0 && r.ctx.Err() != nil {
		r.ferr = r.ctx.Err()
		return r.ferr
	}
	if derr != nil {
		// Scan accepted the line, so this is not expected; say so.
		r.warn(line, derr)
		return nil
	}
	if msg := Mismatches(e); msg != "" {
		r.warn(line, errors.New(msg))
	}
	r.o.Line = line
	r.ferr = x.h.entry(&r.o, e)
	return r.ferr
}

// options are the reader's: the kind's types, filter and lazy reads,
// warnings given to r.
func (r *fileRead) options() transcript.Options {
	x := r.x
	return transcript.Options{Types: x.types, Warn: r.warn, Filter: x.filter(x.h), Tools: x.lazy(), Borrow: x.borrows()}
}

// borrows reports whether the tool kinds' entries may borrow the reader's
// line (transcript.Options.Borrow): their facts are written out as JSON
// only, and with no cache, whose records keep the facts as they are.
// The joiner copies what outlives the line (joiner.borrowed).
func (x *Extractor) borrows() bool {
	return borrowLines && x.lazyTools && x.opts.JSONOnly && x.opts.Cache == nil && x.mark == nil
}

// borrowLines turns borrows on (tests turn it off for its slow twin:
// every value copied out of the line as it is decoded).
var borrowLines = true

// sayAll passes on warnings held back.
func (x *Extractor) sayAll(msgs []string) {
	for _, m := range msgs {
		x.opts.Warn(m)
	}
}

// strays names in a warning the records without a "type" in a transcript.
func (x *Extractor) strays(path string, notEntries int) {
	if notEntries > 0 {
		x.opts.Warn(fmt.Sprintf("%s: %d records are not transcript entries (no \"type\"), skipped", path, notEntries))
	}
}

// notTranscript is the rule of a read that found no entry: records without
// a "type" (cc-extract's own output piped back, another tool's NDJSON) or
// only malformed lines are not a transcript.
func notTranscript(path string, notEntries int, sawEntry bool, malformed int) error {
	switch {
	case sawEntry:
		return nil
	case notEntries > 0:
		return fmt.Errorf("%s: %w: %d records without a \"type\" (cc-extract output, or another tool's NDJSON?)", path, transcript.ErrNotTranscript, notEntries)
	case malformed > 0:
		return fmt.Errorf("%s: %w: no valid line", path, transcript.ErrNotTranscript)
	}
	return nil
}

// maxFileWarnings is how many lines of one file are named in warnings
// (as many as lib/usage's scan names of each kind).
const maxFileWarnings = usage.MaxNamed

// usageJob is one transcript read on the fast path: its records are
// taken once the whole file is read.
type usageJob struct {
	x     *Extractor
	f     file
	first []string
	bufs  *sync.Pool
	recs  []usageRec
	stats usage.ScanStats
	err   error
	// cached: facts holds the messages still in the cache's bytes (recs
	// is then nil).
	cached bool
	entry  *cache.Entry
	facts  usage.Facts
}

// scanner is lib/usage's scan of the usage kind's files, through the
// cache when there is one.
func (x *Extractor) scanner() usage.Scanner {
	return usage.Scanner{Open: transcript.Open, Cache: x.opts.Cache}
}

// usageFile is f as lib/usage's scan reads it.
func (f *file) usageFile() usage.File {
	return usage.File{Path: f.path, SessionID: f.origin.SessionID, AgentID: f.origin.AgentID, Cost: f.cost, Sums: f.sums,
		Stamp: f.stamp, Stamped: f.stamped}
}

func (j *usageJob) warnFirst(msg string) { j.first = append(j.first, msg) }

// queue finishes the job at once, on the producer's goroutine, when the
// cache holds the file unchanged: a stat and a decode are less than the
// hand-off to a worker and back, which was much of a warm run's time.
// Else the file is read on a worker.
func (j *usageJob) queue(seq *sequencer.Sequencer[job]) error {
	if c := j.x.opts.Cache; c != nil {
		if e, ok := usage.Unchanged(c, j.f.usageFile()); ok {
			// Decoded by take, on the other goroutine: the one that
			// lists and stats the files is the slower of the two.
			j.entry, j.cached = e, true
			return seq.Done(j)
		}
	}
	return seq.Add(func(context.Context, int) job { j.run(); return j })
}

func (j *usageJob) run() {
	buf := j.bufs.Get().(*[]byte)
	j.recs, *buf, j.stats, j.err = j.x.scanner().Scan(j.f.usageFile(), *buf)
	j.bufs.Put(buf)
}

// take counts the file's messages, in input order, so output and dedup
// do not depend on timing.
func (j *usageJob) take(context.Context) error {
	x := j.x
	for _, w := range j.first {
		x.opts.Warn(w)
	}
	if j.cached {
		var ok bool
		if j.stats, ok = j.facts.Read(j.entry.Data, j.f.sums); !ok {
			// Not what was written (the store's checksum makes that all
			// but impossible): read the file, here.
			j.cached = false
			j.recs, _, j.stats, j.err = x.scanner().Scan(j.f.usageFile(), nil)
		}
	}
	x.report(j)
	x.usage.addRecorded(cmp.Or(j.stats.Recorded.SessionID, j.f.origin.SessionID), &j.stats.Recorded)
	if j.cached {
		return j.takeFacts()
	}
	if j.f.origin.AgentID == "" {
		if sid, cwd := j.stats.Listed(x.inWindow); sid != "" {
			x.usage.session(sid, cwd)
		}
	}
	for i := range j.recs {
		r := &j.recs[i]
		if err := x.usage.take(r, r.Key); err != nil {
			return err
		}
	}
	return nil
}

// corrupt drops the job's cache entry, which did not decode.
func (j *usageJob) corrupt() error {
	j.x.opts.Cache.Delete(j.f.path)
	return fmt.Errorf("%s: the usage cache's entry is not what was written; dropped: run again (or with --no-cache)", j.f.path)
}

// takeFacts is take for messages read from the cache as they are counted.
// The store's checksum makes bytes other than what was written all but
// impossible; should they come, the run fails (it may have counted some
// of the file's messages) and the entry is dropped for the next.
func (j *usageJob) takeFacts() error {
	x, f := j.x, &j.facts
	corrupt := j.corrupt
	if j.f.origin.AgentID == "" {
		sid, cwd, ok := f.Listed(x.inWindow)
		if !ok {
			return corrupt()
		}
		if sid != "" {
			x.usage.session(sid, cwd)
		}
	}
	err := f.Each(x.usage.take)
	if errors.Is(err, usage.ErrDamaged) {
		return corrupt()
	}
	return err
}

// report passes on what a fast-path read skipped, as readFile does: the
// first lines named, the rest counted, and a file with no entry in it
// fails.
func (x *Extractor) report(j *usageJob) {
	st := &j.stats
	if j.err != nil {
		x.unreadable++
		x.opts.Warn(j.err.Error())
	}
	if j.err != nil {
		return
	}
	// A file that is no transcript gets one error, not a warning per line.
	if err := notTranscript(j.f.path, st.NotEntries, st.SawEntry, st.NMalformed); err != nil {
		x.unreadable++
		x.opts.Warn(err.Error())
		return
	}
	var lines []string
	for _, n := range st.Malformed {
		lines = append(lines, fmt.Sprintf("%s:%d: malformed line skipped", j.f.path, n))
	}
	for _, n := range st.TooLong {
		lines = append(lines, fmt.Sprintf("%s:%d: line too long (over %d bytes), skipped", j.f.path, n, ndjson.DefaultMaxLine))
	}
	for _, m := range st.Mismatched {
		lines = append(lines, fmt.Sprintf("%s:%d: %s", j.f.path, m.Line, mismatchNote+m.Fields))
	}
	for _, l := range lines[:min(len(lines), maxFileWarnings)] {
		x.opts.Warn(l)
	}
	// The lists are capped; nMalformed is not.
	if all := len(lines) - len(st.Malformed) + st.NMalformed; all > maxFileWarnings {
		x.opts.Warn(fmt.Sprintf("%s: %d more warnings not shown (%d in all)", j.f.path, all-maxFileWarnings, all))
	}
	if st.Incomplete {
		x.opts.Warn(fmt.Sprintf("%s: %v", j.f.path, transcript.ErrIncomplete))
	}
	x.strays(j.f.path, st.NotEntries)
}

// mismatchNote starts the warning for fields whose JSON type was not the
// expected one: they read as empty (0, "", false), so a fact built on them
// may be wrong, and the user is told rather than left to trust it.
const mismatchNote = "fields of an unexpected type read as empty: "

// Mismatches returns the warning for an entry with fields of an unexpected
// type, or "" when it has none.
func Mismatches(e *transcript.Entry) string {
	if len(e.TypeMismatches) == 0 {
		return ""
	}
	return mismatchNote + strings.Join(e.TypeMismatches, ", ")
}
