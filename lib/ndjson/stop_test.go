package ndjson

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

// TestStop: a stop keeps its cause's message and identity, is found
// through wrapping (a loop that adds context), and a plain error is not
// one.
func TestStop(t *testing.T) {
	if Stop(nil) != nil {
		t.Error("Stop(nil) is not nil")
	}
	epipe := fmt.Errorf("write stdout: %w", syscall.EPIPE)
	stop := Stop(epipe)
	if stop.Error() != epipe.Error() || !errors.Is(stop, syscall.EPIPE) {
		t.Errorf("Stop(%v) = %q, cause lost", epipe, stop)
	}
	for _, tc := range []struct {
		err       error
		cause     error
		isStopped bool
	}{
		{stop, epipe, true},
		{fmt.Errorf("reading stdin: %w", stop), epipe, true},
		{fs.ErrNotExist, fs.ErrNotExist, false},
		{nil, nil, false},
	} {
		cause, ok := Stopped(tc.err)
		if ok != tc.isStopped || cause != tc.cause {
			t.Errorf("Stopped(%v) = %v, %v; want %v, %v", tc.err, cause, ok, tc.cause, tc.isStopped)
		}
	}
}
