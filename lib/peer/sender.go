package peer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/ccpipe/ccpipe/lib/regular"
)

// Target is what a Sender needs to know about a session.
type Target struct {
	SocketPath string // messagingSocketPath
	SessionID  string // for messages only
	Pid        int    // for messages only
	// KeyToken is the peerToken of the session's .key file, or empty.
	// With it the connection opens with the auth line. Never print it.
	KeyToken string `json:"-"`
	// PeerProtocol as declared in the registry; 0 means not known (a
	// record that carries only a socket path).
	PeerProtocol int
}

// String shows the target without its token.
func (t Target) String() string {
	return fmt.Sprintf("session %s (pid %d, %s)", t.SessionID, t.Pid, t.SocketPath)
}

// GoString keeps %#v from printing the token.
func (t Target) GoString() string { return t.String() }

// Check tells whether the target can be messaged at all: it needs a
// socket path, and a declared peerProtocol must be one this package
// speaks.
func (t Target) Check() error {
	var reasons []string
	if t.SocketPath == "" {
		reasons = append(reasons, "no messagingSocketPath in the registry record (messaging off, or not published yet)")
	}
	if t.PeerProtocol != 0 && t.PeerProtocol != Protocol {
		reasons = append(reasons, fmt.Sprintf("peerProtocol %d, this version speaks %d", t.PeerProtocol, Protocol))
	}
	if len(reasons) > 0 {
		return &NotAlignedError{Reasons: reasons}
	}
	return nil
}

// DefaultTimeout bounds one exchange when Sender.Timeout is zero.
const DefaultTimeout = 5 * time.Second

// Sender writes frames to session sockets.
type Sender struct {
	// Timeout bounds the whole exchange: connect, write, and the wait for
	// the receiver to close its side. Zero means DefaultTimeout.
	Timeout time.Duration
}

// Result describes a finished exchange.
type Result struct {
	Bytes int  // bytes of the frames written, newlines included, auth line excluded
	Auth  bool // whether the auth line was sent
}

// Send connects to the target's socket, writes the auth line (when the
// target has a key token) and the frames, half-closes, and waits until the
// receiver closes its side, which it does only after reading everything.
// It never waits longer than the timeout or ctx allows. Every frame is
// size-checked before connecting.
func (s *Sender) Send(ctx context.Context, t Target, frames ...Frame) (Result, error) {
	return s.SendAfter(ctx, t, nil, frames...)
}

// SendAfter is Send with a step between connecting and writing: ready
// runs once the target is known to be a live socket (the connection is
// up) and before any frame is written; an error from it ends the exchange
// with nothing sent. --wait binds its reply socket there (ListenReply), so
// that a dead or made-up target never gets a file created beside it.
func (s *Sender) SendAfter(ctx context.Context, t Target, ready func() error, frames ...Frame) (Result, error) {
	if err := t.Check(); err != nil {
		return Result{}, err
	}
	if len(frames) == 0 {
		return Result{}, errors.New("nothing to send")
	}
	for _, f := range frames {
		if err := CheckSize(f); err != nil {
			return Result{}, err
		}
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	deadline, _ := ctx.Deadline()

	fail := func(op string, err error) error {
		se := &SendError{Path: t.SocketPath, Op: op, Err: err}
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
			se.Kind, se.Timeout, se.Err = ErrTimeout, timeout, nil
		case errors.Is(err, context.Canceled):
			se.Err = err
		case errors.Is(err, syscall.ENOENT):
			se.Kind = ErrNotRunning
		case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ENOTSOCK):
			// Linux refuses a connect to a regular file or a directory as
			// it does a stale socket: tell them apart.
			se.Kind = ErrRefused
			if fi, lerr := os.Stat(t.SocketPath); lerr == nil && fi.Mode()&fs.ModeSocket == 0 {
				se.Kind, se.What = ErrNotSocket, regular.Kind(fi.Mode())
			}
		case errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNRESET):
			se.Kind = ErrClosedEarly
		}
		return se
	}

	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", t.SocketPath)
	if err != nil {
		return Result{}, fail("connect", err)
	}
	conn := c.(*net.UnixConn)
	defer conn.Close()
	if ready != nil {
		if err := ready(); err != nil {
			return Result{}, err
		}
	}
	// The deadline also ends a blocked write or read when ctx is cancelled.
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	var res Result
	buf := make([]byte, 0, 4096)
	if t.KeyToken != "" {
		buf = append(append(buf, authLine(t.KeyToken)...), '\n')
		res.Auth = true
	}
	for _, f := range frames {
		buf = append(append(buf, f...), '\n')
		res.Bytes += len(f) + 1
	}
	if _, err := conn.Write(buf); err != nil {
		return Result{}, fail("write", ctxErr(ctx, err))
	}
	if err := conn.CloseWrite(); err != nil {
		return Result{}, fail("half-close", ctxErr(ctx, err))
	}
	// The inbox writes nothing back; it closes after our EOF once it has
	// read the frames. Anything it sends anyway is discarded.
	// Linux resets the connection when the receiver closes with frames
	// still unread in its buffer: that is ErrClosedEarly, not a delivery.
	if _, err := io.Copy(io.Discard, conn); err != nil {
		return Result{}, fail("wait for the receiver", ctxErr(ctx, err))
	}
	return res, nil
}

// ctxErr prefers ctx's reason (cancelled, deadline) over the I/O error it
// caused through the connection deadline.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
