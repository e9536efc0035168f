package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/ccpipe/ccpipe/lib/transcript"
	"golang.org/x/sync/errgroup"
)

// Wants reports whether a line can hold a record this kind reads: a cheap
// byte test to run before decoding an entry.
func (x *Extractor) Wants(line []byte) bool {
	return containsAny(line, x.typeNeedles) && (x.needles == nil || containsAny(line, x.needles))
}

func containsAny(b []byte, needles [][]byte) bool {
	for _, n := range needles {
		if bytes.Contains(b, n) {
			return true
		}
	}
	return false
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
}

// files lists a session's transcripts: the main one, then with
// Options.Subagents its subagents', oldest first.
func (x *Extractor) files(path string) []file {
	sid := transcript.SessionID(path)
	cost := x.opts.Prices != nil
	out := []file{{path: path, origin: Origin{Path: path, SessionID: sid}, cost: cost}}
	if !x.opts.Subagents {
		return out
	}
	subs, err := transcript.Subagents(path)
	if err != nil {
		x.opts.Warn(fmt.Sprintf("listing subagents of %s: %v", path, err))
	}
	for _, s := range subs {
		out = append(out, file{path: s.Path, origin: Origin{Path: s.Path, SessionID: sid, AgentID: s.AgentID}, cost: cost})
	}
	return out
}

// ReadTranscript reads the transcript at path (plain, .gz or .zst) and,
// with Options.Subagents, its subagent transcripts, and extracts their
// facts.
func (x *Extractor) ReadTranscript(ctx context.Context, path string) error {
	return x.ReadTranscripts(ctx, func(add func(string) error) error { return add(path) })
}

// ReadTranscripts reads every transcript produce adds. produce runs on its
// own goroutine when the kind reads several transcripts at once (usage);
// it must not emit. A transcript that cannot be read is reported through
// Options.Warn and skipped; the error returned then wraps ErrUnreadable.
// Call Close afterwards.
func (x *Extractor) ReadTranscripts(ctx context.Context, produce func(add func(path string) error) error) error {
	var err error
	if x.usage != nil {
		err = x.readUsage(ctx, produce)
	} else {
		err = produce(func(path string) error {
			for _, f := range x.files(path) {
				if err := x.readFile(ctx, f); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err == nil && x.unreadable > 0 {
		err = fmt.Errorf("%w: %d", ErrUnreadable, x.unreadable)
	}
	return err
}

// readFile reads one transcript through the typed entry reader. A file
// that cannot be read is reported and counted, not fatal.
func (x *Extractor) readFile(ctx context.Context, f file) error {
	o := f.origin
	n := 0
	var ferr error // an error of the extraction, not of the read
	warned := 0    // per file: the first ten lines named, the rest counted
	warn := func(line int, err error) {
		if warned++; warned <= maxFileWarnings {
			x.opts.Warn(fmt.Sprintf("%s:%d: %v", f.path, line, err))
		}
	}
	opts := transcript.Options{Types: x.types, Warn: warn, Filter: x.filter(x.h), Tools: x.lazy()}
	d, err := transcript.ReadFile(f.path, opts, func(l *transcript.Line) error {
		if n++; n%1024 == 0 && ctx.Err() != nil {
			ferr = ctx.Err()
			return ferr
		}
		e, err := x.decode(l)
		if err != nil {
			// Scan accepted the line, so this is not expected; say so.
			warn(l.Number, err)
			return nil
		}
		if msg := Mismatches(e); msg != "" {
			warn(l.Number, errors.New(msg))
		}
		o.Line = l.Number
		ferr = x.h.entry(&o, e)
		return ferr
	})
	if ferr != nil {
		return ferr
	}
	if warned > maxFileWarnings {
		x.opts.Warn(fmt.Sprintf("%s: %d more warnings not shown (%d in all)", f.path, warned-maxFileWarnings, warned))
	}
	if err == nil {
		err = x.judge(f.path, d.NotEntries(), d.SawEntry(), d.Malformed)
	}
	if err != nil {
		x.unreadable++
		x.opts.Warn(err.Error())
	}
	return x.h.endFile()
}

// judge tells from what a read of a file saw whether it was a transcript:
// records without a "type" and no entry (cc-extract's own output piped
// back, another tool's NDJSON) or only malformed lines are not; stray
// records in a transcript are named in a warning.
func (x *Extractor) judge(path string, notEntries int, sawEntry bool, malformed int) error {
	switch {
	case notEntries > 0 && !sawEntry:
		return fmt.Errorf("%s: not a transcript: %d records without a \"type\" (cc-extract output, or another tool's NDJSON?)", path, notEntries)
	case notEntries > 0:
		x.opts.Warn(fmt.Sprintf("%s: %d records are not transcript entries (no \"type\"), skipped", path, notEntries))
	case !sawEntry && malformed > 0:
		return fmt.Errorf("%s: not a transcript: no valid line", path)
	}
	return nil
}

// maxFileWarnings is how many lines of one file are named in warnings.
const maxFileWarnings = 10

// usageJob is one transcript read on the fast path.
type usageJob struct {
	f     file
	recs  []usageRec
	stats scanStats
	err   error
	done  chan struct{}
}

// readUsage reads transcripts on several goroutines and counts their
// messages in input order, so output and dedup do not depend on timing.
func (x *Extractor) readUsage(ctx context.Context, produce func(add func(string) error) error) error {
	workers := x.opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	order := make(chan *usageJob, 4*workers)
	work := make(chan *usageJob, workers)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(order)
		defer close(work)
		return produce(func(path string) error {
			for _, f := range x.files(path) {
				j := &usageJob{f: f, done: make(chan struct{})}
				for _, ch := range []chan *usageJob{order, work} {
					select {
					case ch <- j:
					case <-gctx.Done():
						return gctx.Err()
					}
				}
			}
			return nil
		})
	})
	bufs := sync.Pool{New: func() any { return new([]byte) }}
	for range workers {
		g.Go(func() error {
			for j := range work {
				buf := bufs.Get().(*[]byte)
				j.recs, *buf, j.stats, j.err = scanUsageFile(j.f, *buf)
				bufs.Put(buf)
				close(j.done)
			}
			return nil
		})
	}
	consume := func() error {
		for j := range order {
			select {
			case <-j.done:
			case <-gctx.Done():
				return gctx.Err()
			}
			x.report(j)
			for i := range j.recs {
				r := &j.recs[i]
				if err := x.usage.take(r, r.key()); err != nil {
					return err
				}
			}
		}
		return nil
	}
	err := consume()
	if err != nil {
		cancel()
	}
	// The cause beats its symptom: a producer's error (a dir that cannot
	// be listed) cancels gctx, and consume then sees only "context
	// canceled".
	if gerr := g.Wait(); gerr != nil && !errors.Is(gerr, context.Canceled) && (err == nil || errors.Is(err, context.Canceled)) {
		err = gerr
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
	var lines []string
	for _, n := range st.malformed {
		lines = append(lines, fmt.Sprintf("%s:%d: malformed line skipped", j.f.path, n))
	}
	for _, n := range st.tooLong {
		lines = append(lines, fmt.Sprintf("%s:%d: line too long (over %d bytes), skipped", j.f.path, n, maxLine))
	}
	for _, m := range st.mismatched {
		lines = append(lines, fmt.Sprintf("%s:%d: %s", j.f.path, m.line, mismatchNote+m.fields))
	}
	for _, l := range lines[:min(len(lines), maxFileWarnings)] {
		x.opts.Warn(l)
	}
	// The lists are capped; nMalformed is not.
	if all := len(lines) - len(st.malformed) + st.nMalformed; all > maxFileWarnings {
		x.opts.Warn(fmt.Sprintf("%s: %d more warnings not shown (%d in all)", j.f.path, all-maxFileWarnings, all))
	}
	if st.incomplete {
		x.opts.Warn(fmt.Sprintf("%s: %v", j.f.path, transcript.ErrIncomplete))
	}
	if j.err != nil {
		return
	}
	if err := x.judge(j.f.path, st.notEntries, st.sawEntry, st.nMalformed); err != nil {
		x.unreadable++
		x.opts.Warn(err.Error())
	}
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
