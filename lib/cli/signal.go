package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"
)

// signalGrace is how long a command has, after SIGINT or SIGTERM, to
// notice its cancelled context and clean up (remove a temporary file)
// before Main returns without it. A command blocked in a read, an open of
// a FIFO or a jq loop never notices; Main returns anyway, so every
// command ends within about this long.
const signalGrace = 300 * time.Millisecond

// errSignal is the cause of the context cancellation on a signal.
var errSignal = errors.New("interrupted")

// runInterruptible runs fn in its own goroutine with a context that a
// SIGINT or SIGTERM cancels. On such a signal it returns exitCode 130 or
// 143 (128 + the signal number, the shell's convention) as soon as fn has
// returned or signalGrace has passed, whichever is first; a second
// signal ends the wait at once. fn's goroutine may still be running: the
// caller's os.Exit ends it. A panic in fn becomes an error (exit 1, with
// the stack), never the runtime's exit 2.
func runInterruptible(fn func(ctx context.Context) error) (exitCode int, err error) {
	sigc := make(chan os.Signal, 2)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigc)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)

	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("internal error: %v\n%s", r, debug.Stack())
			}
		}()
		done <- fn(ctx)
	}()
	select {
	case err := <-done:
		return -1, err
	case sig := <-sigc:
		cancel(errSignal)
		select {
		case <-done:
		case <-sigc:
		case <-time.After(signalGrace):
		}
		return 128 + int(sig.(syscall.Signal)), nil
	}
}
