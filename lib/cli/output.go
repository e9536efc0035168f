package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/ccpipe/ccpipe/lib/jq"
	"github.com/ccpipe/ccpipe/lib/ndjson"
)

// Output writes a command's records to stdout: as they are without --jq,
// else through the filter, each result one line.
type Output struct {
	w      *ndjson.Writer
	filter *jq.Filter
	raw    bool
	n      int

	// A jq runtime error fails one record, not the stream (as in jq):
	// warn names it, the run goes on, and Main exits 1 at the end.
	warn   func(format string, a ...any)
	in     int // records given to the filter
	failed int // records whose filter run raised a runtime error

	// tab holds the records for --format table, csv or tsv, written
	// out at the end; nil for NDJSON (see format.go).
	tab *recordTable
	// term: stdout is a terminal, where a run with no records says so
	// on stderr (empty: what to say, from the layout).
	term  bool
	empty string
	// notes are said on stderr after the records, on a terminal (Note).
	notes []string
	// guard bounds each record's --jq run in time and memory.
	guard *jq.Guard
}

// Note adds a line said on stderr after the records when stdout is a
// terminal: a footer for what a total is known to miss. A pipe gets the
// records alone (their fields say it).
func (o *Output) Note(msg string) { o.notes = append(o.notes, msg) }

// emptyNote is the one line a run that printed no record says on a
// terminal (a pipe gets nothing: no record is the answer there).
func (o *Output) emptyNote() string {
	if !o.term || o.n > 0 {
		return ""
	}
	if o.empty != "" {
		return o.empty
	}
	return "no records"
}

// Write emits one record given as a Go value (a struct with json tags, a
// map, or json.RawMessage, or a pointer to one: no allocation to pass it,
// for a caller that hands on many).
func (o *Output) Write(v any) error {
	switch raw := v.(type) {
	case json.RawMessage:
		return o.WriteJSON(raw)
	case *json.RawMessage:
		return o.WriteJSON(*raw)
	}
	if o.filter == nil && o.tab == nil {
		o.n++
		return o.check(o.w.Encode(v))
	}
	b, err := ndjson.Marshal(v)
	if err != nil {
		return err
	}
	return o.WriteJSON(b)
}

// WriteJSON emits one record given as a line of JSON. Without --jq the
// bytes go out untouched (key order, number spelling, everything).
func (o *Output) WriteJSON(line []byte) error {
	if o.filter == nil {
		o.n++
		return o.line(line)
	}
	v, err := jq.Decode(line)
	if err != nil {
		return err
	}
	return o.apply(v)
}

func (o *Output) apply(v any) error {
	o.in++
	if o.guard == nil {
		o.guard = &jq.Guard{Budget: jq.DefaultBudget}
	}
	err := o.guard.Run(o.filter, v, func(r any) error {
		o.n++
		if s, ok := r.(string); ok && o.raw && o.tab == nil {
			return o.check(o.w.WriteLine([]byte(s)))
		}
		b, err := jq.Marshal(r)
		if err != nil {
			return err
		}
		return o.line(b)
	})
	if errors.Is(err, jq.ErrHalt) {
		return errQuiet
	}
	if errors.Is(err, jq.ErrBudget) {
		return fmt.Errorf("--jq: record %d: %w", o.in, err)
	}
	var re *jq.RuntimeError
	if errors.As(err, &re) {
		o.failed++
		if o.warn != nil {
			o.warn("--jq: record %d: %v", o.in, err)
		}
		return nil
	}
	return err
}

// SetJQTimeout bounds each record's --jq run to d (jq.DefaultBudget's
// time when not set; its memory bound stays): cc-statusline's --budget
// covers its --jq too.
func (o *Output) SetJQTimeout(d time.Duration) {
	b := jq.DefaultBudget
	b.Timeout = d
	o.guard = &jq.Guard{Budget: b}
}

// stopJQ ends the --jq budget's watch.
func (o *Output) stopJQ() {
	if o.guard != nil {
		o.guard.Stop()
	}
}

// errJQFailed ends a run in which some records failed the --jq filter;
// each was reported when it happened.
var errJQFailed = &ExitError{Code: ExitFail}

// Printed tells the output that the command wrote its own text to
// stdout (cc-statusline's line): the run printed something, so no empty
// result's note is said.
func (o *Output) Printed() { o.n++ }

// Count is the number of lines written so far.
func (o *Output) Count() int { return o.n }

// Flush writes out buffered lines; a reader that went away is not an
// error. A table is written only at the end (finish).
func (o *Output) Flush() error { return o.check(o.w.Flush()) }

// line writes one JSON record: a line of NDJSON, or a row to hold.
func (o *Output) line(b []byte) error {
	if o.tab != nil {
		return o.tab.add(b)
	}
	return o.check(o.w.WriteLine(b))
}

// Filtering reports whether --jq is set (commands that pass raw lines can
// skip decoding otherwise).
func (o *Output) Filtering() bool { return o.filter != nil }

func (o *Output) check(err error) error {
	if err != nil && errors.Is(err, syscall.EPIPE) {
		return errQuiet
	}
	return err
}
