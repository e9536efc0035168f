package transcript

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// DefaultPoll is how often a followed transcript is checked for new
// bytes: well under the one second a watcher should wait for a record.
const DefaultPoll = 100 * time.Millisecond

// Follow says how a transcript is followed as Claude Code appends to it.
type Follow struct {
	// Poll is the wait between checks at the end of the file; 0 means
	// DefaultPoll.
	Poll time.Duration
	// Stop is asked at the end of the file; once it reports true (the
	// session's registry record is gone) the file is read one last time
	// and the follow ends. Nil follows until the context is done.
	Stop func() bool
}

// ErrTruncated is returned when a followed file shrinks under the reader.
var ErrTruncated = errors.New("transcript shrank while being followed")

// followReader reads a growing file: at its end it waits for more bytes
// instead of returning io.EOF, until stopped. A partial last line is
// therefore completed by a later read, not reported.
type followReader struct {
	ctx   context.Context
	f     *os.File
	poll  time.Duration
	stop  func() bool
	idle  func() error // called each time the reader has caught up with the file
	pos   int64
	done  bool
	timer *time.Timer
}

func newFollowReader(ctx context.Context, f *os.File, fo Follow, idle func() error) *followReader {
	poll := fo.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	return &followReader{ctx: ctx, f: f, poll: poll, stop: fo.Stop, idle: idle}
}

func (r *followReader) Read(p []byte) (int, error) {
	for {
		n, err := r.f.Read(p)
		r.pos += int64(n)
		if n > 0 {
			return n, nil
		}
		if err != nil && err != io.EOF {
			return 0, err
		}
		if r.done {
			return 0, io.EOF
		}
		if fi, err := r.f.Stat(); err == nil && fi.Size() < r.pos {
			return 0, fmt.Errorf("%w (from %d to %d bytes)", ErrTruncated, r.pos, fi.Size())
		}
		if r.idle != nil {
			if err := r.idle(); err != nil {
				return 0, err
			}
		}
		if r.ctx.Err() != nil || (r.stop != nil && r.stop()) {
			// One last read picks up what was written before the end.
			r.done = true
			continue
		}
		if r.timer == nil {
			r.timer = time.NewTimer(r.poll)
		} else {
			r.timer.Reset(r.poll)
		}
		select {
		case <-r.ctx.Done():
			r.timer.Stop()
		case <-r.timer.C:
		}
	}
}
