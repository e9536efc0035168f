package peer

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinel errors; every error this package returns for a failed send
// wraps one of them, so callers can test with errors.Is.
var (
	// ErrNotAligned: the target does not declare a protocol this package
	// speaks (peerProtocol 1 and a socket path).
	ErrNotAligned = errors.New("messaging not aligned")
	// ErrNotRunning: there is no socket file; the session has ended.
	ErrNotRunning = errors.New("session not running")
	// ErrRefused: the socket file exists but nobody listens on it, a stale
	// file left by a crashed or aborted session.
	ErrRefused = errors.New("connection refused")
	// ErrNotSocket: the path names a file that is not a socket (a
	// regular file, a directory): not a session's messaging socket.
	ErrNotSocket = errors.New("not a socket")
	// ErrTooLarge: the frame is over the receiver's line limit.
	ErrTooLarge = errors.New("message too large")
	// ErrTimeout: the exchange did not finish within the deadline (a
	// receiver that does not read, or a hung process).
	ErrTimeout = errors.New("timed out")
	// ErrClosedEarly: the receiver closed the connection before it took
	// all the frames.
	ErrClosedEarly = errors.New("receiver closed the connection early")
)

// NotAlignedError lists why a target cannot be messaged.
type NotAlignedError struct {
	Reasons []string
}

func (e *NotAlignedError) Error() string {
	return "messaging not aligned: " + strings.Join(e.Reasons, "; ")
}

func (e *NotAlignedError) Unwrap() error { return ErrNotAligned }

// TooLargeError carries the size of the refused frame and the limit.
type TooLargeError struct {
	Size  int // UTF-16 code units of the frame line, as the receiver counts
	Limit int // the receiver's line limit (MaxLine)
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("message too large: the frame is %d characters; the receiver drops lines over %d (%d of them kept free for the auth line)",
		e.Size, e.Limit, AuthAllowance+1)
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// SendError is a failed exchange with one socket.
type SendError struct {
	Path    string        // the socket
	Op      string        // "connect", "write", "wait for the receiver"
	Timeout time.Duration // set for timeouts
	Kind    error         // one of the sentinels above
	Err     error         // the system error, if any
	What    string        // ErrNotSocket: what the path is instead ("a regular file")
}

func (e *SendError) Error() string {
	switch e.Kind {
	case ErrNotRunning:
		return fmt.Sprintf("%s: no such socket: the session is not running", e.Path)
	case ErrNotSocket:
		return fmt.Sprintf("%s: not a socket but %s: not a session's messaging socket", e.Path, e.What)
	case ErrRefused:
		return fmt.Sprintf("%s: connection refused: stale socket file, nobody listens (the session has ended or crashed)", e.Path)
	case ErrTimeout:
		if e.Op == "wait for the receiver" {
			return fmt.Sprintf("%s: timed out after %s: the receiver did not read the message (written, not confirmed)", e.Path, e.Timeout)
		}
		return fmt.Sprintf("%s: %s timed out after %s", e.Path, e.Op, e.Timeout)
	case ErrClosedEarly:
		return fmt.Sprintf("%s: the receiver closed the connection before reading the message", e.Path)
	}
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Path, e.Op, e.Err)
	}
	return fmt.Sprintf("%s: %s failed", e.Path, e.Op)
}

// Is makes errors.Is match the sentinel kind.
func (e *SendError) Is(target error) bool { return e.Kind != nil && target == e.Kind }

func (e *SendError) Unwrap() error { return e.Err }
