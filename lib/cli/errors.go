package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ccpipe/ccpipe/lib/quote"
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

// Usagef builds a UsageError. A string shown with %q is a value the user
// gave: it is cut as lib/quote cuts (a 10,000-character flag value is
// named by its start).
func Usagef(format string, a ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, cutQuoted(format, a)...)}
}

// cutQuoted returns a with each string that format prints with %q cut.
func cutQuoted(format string, a []any) []any {
	var out []any
	arg := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		// Skip flags, width and precision to the verb.
		j := i + 1
		for j < len(format) && strings.IndexByte("+-# 0123456789.*", format[j]) >= 0 {
			if format[j] == '*' {
				arg++
			}
			j++
		}
		if j == len(format) {
			break
		}
		i = j
		if format[j] == '%' {
			continue
		}
		if s, ok := argAt(a, arg).(string); ok && format[j] == 'q' && quote.Cut(s) != s {
			if out == nil {
				out = append([]any(nil), a...)
			}
			out[arg] = quote.Cut(s)
		}
		arg++
	}
	if out == nil {
		return a
	}
	return out
}

func argAt(a []any, i int) any {
	if i < len(a) {
		return a[i]
	}
	return nil
}

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
