package ccredact

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/records"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// sessionRef is the transcript a session record stands for.
type sessionRef struct {
	path, id string
}

// asSession tells a session record (records.Classify: a session record
// with a transcript_path; not an entry, a hook payload or a fact) from a
// record to redact as it is.
func asSession(line []byte) (sessionRef, bool) {
	if !bytes.Contains(line, []byte(`"transcript_path"`)) {
		return sessionRef{}, false // the byte test spares a scan of every transcript line
	}
	rec, err := records.Classify(line)
	if err != nil || rec.Kind != records.Session || rec.TranscriptPath == "" {
		return sessionRef{}, false
	}
	return sessionRef{rec.TranscriptPath, rec.Session()}, true
}

// eachLine calls fn for each non-blank line of in. Over-long lines are
// reported through warn and skipped; fn's error stops the loop and is
// returned, and so is a cancelled ctx (as an ndjson.Stop); a read error is
// returned as it is. A big plain file (not
// stdin, whose offset may not be 0) is read through memory maps.
func eachLine(ctx context.Context, in io.Reader, warn func(n int, msg string), fn func(line []byte, n int, last bool) error) error {
	rd := ndjson.NewReader(in)
	if in == io.Reader(os.Stdin) {
		return readLines(ctx, rd, warn, fn)
	}
	return transcript.ReadMapped(in, rd, func() error { return readLines(ctx, rd, warn, fn) })
}

// readLines is eachLine's loop; a cancelled ctx (an interrupt) stops it
// with an ndjson.Stop.
func readLines(ctx context.Context, rd *ndjson.Reader, warn func(n int, msg string), fn func(line []byte, n int, last bool) error) error {
	for {
		if err := ctx.Err(); err != nil {
			return ndjson.Stop(err)
		}
		line, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if errors.Is(err, ndjson.ErrLineTooLong) {
			warn(rd.Line(), fmt.Sprintf("line over %d bytes, left out", rd.MaxLine))
			continue
		}
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := fn(line, rd.Line(), rd.Partial()); err != nil {
			return err
		}
	}
}

// warner names at most maxWarnings bad lines of one input on stderr and
// counts the rest.
type warner struct {
	r     *runner
	name  string
	shown int
	more  int
}

const maxWarnings = 10

func (w *warner) warn(n int, msg string) {
	w.r.failed = true
	if w.shown < maxWarnings {
		w.shown++
		w.r.env.Warnf("%s:%d: %s", w.name, n, msg)
		return
	}
	w.more++
}

func (w *warner) done() {
	if w.more > 0 {
		w.r.env.Warnf("%s: %d more bad lines not shown", w.name, w.more)
	}
}
