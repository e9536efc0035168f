package transcript

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/ccpipe/ccpipe/lib/regular"
	"io"
	"time"
)

// Select narrows a stream beyond record types.
type Select struct {
	// Since and Until keep records timestamped within [Since, Until]; a
	// zero value leaves that side open. A record without a timestamp
	// (metadata records have none) takes the one of the record before it;
	// the ones at the head of a file, before any timestamp (a session's
	// title, its mode), take the first timestamp after them, so that a
	// window holds them exactly when it holds the session's start. A file
	// with no timestamp at all has nothing in any window.
	Since, Until time.Time
	// Tail > 0 keeps only the last Tail selected records (memory is Tail
	// lines); Tail < 0 keeps none of the records already in the file, so
	// a follow prints only new ones; 0 keeps all.
	Tail int
	// Branch keeps only the records on the active conversation branch
	// (see ActiveBranch). It needs a file: the uuids are read in a first
	// pass.
	Branch bool
}

// Source is what Stream reads: a file by Path, or a stream (stdin).
type Source struct {
	Path   string
	Reader io.Reader
	// Follow, when set, keeps reading Path as it grows (plain files only).
	Follow *Follow
}

// Name is how the source is called in messages.
func (s Source) Name() string {
	if s.Path != "" {
		return s.Path
	}
	return "<stdin>"
}

// Stream reads one transcript and calls fn for each line the options and
// the selection keep, in file order. It is ReadFile plus time, tail,
// branch and follow selection. Diagnostics are returned even on error.
func Stream(ctx context.Context, src Source, opts Options, sel Select, fn func(*Line) error) (Diagnostics, error) {
	diag := NewDiagnostics()
	diag.Path = src.Path
	var branch map[string]bool
	if sel.Branch {
		if src.Path == "" {
			return diag, errors.New("--branch needs a transcript file (it reads the file twice), not a stream")
		}
		if src.Follow != nil {
			return diag, errors.New("--branch cannot be followed: the active branch moves as the session runs")
		}
		var err error
		if branch, err = ActiveBranch(src.Path, opts.MaxLine); err != nil {
			return diag, err
		}
	}
	decode := opts.Decode
	opts.Decode = false // decoded below, after the selection (and the tail)
	st := &selector{sel: sel, branch: branch, decode: decode, diag: &diag, fn: fn}

	var in io.Reader
	switch {
	case src.Follow != nil:
		if CompressionOf(src.Path) != Plain {
			return diag, fmt.Errorf("%s: a compressed transcript cannot be followed", src.Path)
		}
		f, err := regular.Open(src.Path)
		if err != nil {
			return diag, err
		}
		defer f.Close()
		in = newFollowReader(ctx, f, *src.Follow, st.caughtUp)
	case src.Path != "":
		f, err := Open(src.Path)
		if err != nil {
			return diag, err
		}
		defer f.Close()
		in = f
	default:
		in = src.Reader
	}
	rd, release := newPooledReader(in, opts)
	defer release()
	each := rd.Each
	if src.Path != "" && src.Follow == nil {
		each = func(fn func(*Line) error) error { return rd.eachMapped(in, fn) }
	}
	err := each(func(l *Line) error {
		if ctx.Err() != nil && src.Follow == nil {
			return ctx.Err()
		}
		return st.take(l)
	})
	if st.tailErr != nil {
		err = st.tailErr
	} else if err == nil {
		err = st.flushTail()
	}
	d := rd.Diagnostics()
	d.Path = src.Path
	// Records counts what was handed on, after the selection.
	d.Records = st.emitted
	d.Decoded, d.Aligned = diag.Decoded, diag.Aligned
	d.UnknownBlocks, d.TypeMismatches = diag.UnknownBlocks, diag.TypeMismatches
	var re *ReadError
	if errors.As(err, &re) {
		err = fmt.Errorf("reading %s: %w", src.Name(), re.Err)
	}
	return d, err
}

type tailLine struct {
	b []byte
	n int
}

// selector applies the time, branch and tail selection to scanned lines.
type selector struct {
	sel     Select
	branch  map[string]bool
	decode  bool
	diag    *Diagnostics
	fn      func(*Line) error
	lastTS  []byte
	lastT   time.Time
	ring    []tailLine
	next    int
	noTail  bool // the tail was emitted (follow caught up): pass lines on
	emitted int
	tailErr error
	// head holds the untimed records at the head of the file until the
	// first timestamp says whether they are in the window (at most
	// maxHead: the rest of an untimed head is outside it).
	head []tailLine
}

// maxHead bounds the untimed records held at the head of a file; Claude
// Code writes a handful (title, agent name, mode, permission mode).
const maxHead = 256

func (s *selector) take(l *Line) error {
	if s.branch != nil && !s.branch[string(l.Header.UUID)] {
		return nil
	}
	if !s.sel.Since.IsZero() || !s.sel.Until.IsZero() {
		t := s.time(l.Header.Timestamp)
		if t.IsZero() {
			if len(s.head) < maxHead {
				s.head = append(s.head, tailLine{append([]byte(nil), l.Bytes...), l.Number})
			}
			return nil
		}
		in := s.inWindow(t)
		if err := s.flushHead(in); err != nil {
			return err
		}
		if !in {
			return nil
		}
	}
	return s.pass(l)
}

func (s *selector) inWindow(t time.Time) bool {
	return (s.sel.Since.IsZero() || !t.Before(s.sel.Since)) && (s.sel.Until.IsZero() || !t.After(s.sel.Until))
}

// flushHead passes on the untimed head of the file, now that the first
// timestamp put it in the window or out of it.
func (s *selector) flushHead(in bool) error {
	head := s.head
	s.head = nil
	if !in {
		return nil
	}
	for _, h := range head {
		l := &Line{Bytes: h.b, Number: h.n, Owned: true}
		if err := Scan(h.b, &l.Header); err != nil {
			return err
		}
		if err := s.pass(l); err != nil {
			return err
		}
	}
	return nil
}

// pass applies the tail to a line in the window.
func (s *selector) pass(l *Line) error {
	if s.sel.Tail != 0 && !s.noTail {
		if s.sel.Tail > 0 {
			s.keep(l)
		}
		return nil
	}
	return s.emit(l)
}

// time returns the record's time, or the last one seen.
func (s *selector) time(ts []byte) time.Time {
	if len(ts) == 0 || bytes.Equal(ts, s.lastTS) {
		return s.lastT
	}
	if t, err := time.Parse(time.RFC3339Nano, string(ts)); err == nil {
		s.lastT = t
		s.lastTS = append(s.lastTS[:0], ts...)
	}
	return s.lastT
}

func (s *selector) keep(l *Line) {
	if len(s.ring) < s.sel.Tail {
		s.ring = append(s.ring, tailLine{append([]byte(nil), l.Bytes...), l.Number})
		return
	}
	t := &s.ring[s.next]
	t.b, t.n = append(t.b[:0], l.Bytes...), l.Number
	s.next = (s.next + 1) % len(s.ring)
}

func (s *selector) emit(l *Line) error {
	if s.decode {
		e, err := l.Decode()
		if err != nil {
			return err // cannot happen: the line was scanned
		}
		s.diag.Account(e)
		l.Entry = e
	}
	s.emitted++
	return s.fn(l)
}

// flushTail emits the kept tail in file order.
func (s *selector) flushTail() error {
	if s.noTail {
		return nil
	}
	s.noTail = true
	n := len(s.ring)
	for i := 0; i < n; i++ {
		t := s.ring[(s.next+i)%n]
		l := &Line{Bytes: t.b, Number: t.n}
		if err := Scan(t.b, &l.Header); err != nil {
			return err
		}
		if err := s.emit(l); err != nil {
			return err
		}
	}
	s.ring = nil
	return nil
}

// caughtUp is called by a follow reader at the current end of the file:
// the tail of what was there is emitted, later lines go straight on.
func (s *selector) caughtUp() error {
	if !s.noTail && s.tailErr == nil {
		s.tailErr = s.flushTail()
	}
	return s.tailErr
}

// Account adds a decoded entry's findings to the diagnostics.
func (d *Diagnostics) Account(e *Entry) {
	d.Decoded = true
	for _, p := range e.TypeMismatches {
		d.Aligned = false
		if _, ok := d.TypeMismatches[p]; ok || len(d.TypeMismatches) < maxListed {
			d.TypeMismatches[p]++
		}
	}
	if e.UnknownBlocks > 0 && e.Message != nil {
		countUnknownBlocks(e.Message.Content, d.UnknownBlocks)
	}
}

// conversational record types carry the uuid chain.
var conversational = map[string]bool{"user": true, "assistant": true, "system": true, "attachment": true}
