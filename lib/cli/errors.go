package cli

import (
	"errors"
	"fmt"
)

// Exit codes shared by every command.
const (
	ExitOK    = 0
	ExitFail  = 1 // no match, or a runtime failure (the latter always prints a line)
	ExitUsage = 2
)

// UsageError is a mistake in the command line: exit 2, the message, then
// a pointer to -h.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef builds a UsageError.
func Usagef(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

// ErrNoMatch ends a command with exit 1 and prints nothing: grep's contract.
var ErrNoMatch = errors.New("no match")

// ExitError carries an exit code for an error that has already been
// reported (or needs no report).
type ExitError struct {
	Code int
	Err  error // printed when not nil
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// errQuiet marks an ending that must print nothing and exit 0: the reader
// of stdout went away (`cc-x | head -1`), or a jq halt.
var errQuiet = errors.New("quiet stop")
