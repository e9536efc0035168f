package peer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/regular"
)

// ErrInUse: another live process listens on the reply socket.
var ErrInUse = errors.New("reply socket in use")

// ErrListenerClosed is returned by Next after Close.
var ErrListenerClosed = errors.New("listener closed")

// replyConnTimeout bounds one incoming connection, as the inbox bounds
// its own (30 s without a complete line).
const replyConnTimeout = 30 * time.Second

// maxNoticeLine bounds one received line; receipts are a few hundred bytes.
const maxNoticeLine = 1 << 20

// Listener is a reply socket: receivers connect to it to deliver receipts
// and idle notices, one connection each.
type Listener struct {
	Path string // the socket file
	Addr string // its `from` address

	ln      *net.UnixListener
	cctx    context.Context // cancelled by Close
	cancel  context.CancelFunc
	ch      chan Notice
	done    chan struct{}
	once    sync.Once
	wg      sync.WaitGroup
	skipped atomic.Int64
}

// Listen binds a reply socket at path (see ReplyPath). A stale socket
// file there (nobody listening) is replaced; a live one is ErrInUse. The
// socket is made 0600 and removed by Close.
func Listen(path string) (*Listener, error) {
	if len(path) > 107 {
		return nil, fmt.Errorf("reply socket %s: path longer than 107 bytes", path)
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&fs.ModeSocket == 0 {
			return nil, fmt.Errorf("reply socket %s: a file that is not a socket is in the way", path)
		}
		c, err := net.DialTimeout("unix", path, time.Second)
		if err == nil {
			c.Close()
			return nil, fmt.Errorf("%s: %w by another process (give each concurrent sender its own label)", path, ErrInUse)
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("reply socket %s: %w", path, err)
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("reply socket %s: removing the stale file: %w", path, err)
		}
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("reply socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("reply socket: %w", err)
	}
	l := &Listener{Path: path, Addr: Address(path), ln: ln, ch: make(chan Notice, 64), done: make(chan struct{})}
	l.cctx, l.cancel = context.WithCancel(context.Background())
	l.wg.Add(1)
	go l.accept()
	return l, nil
}

func (l *Listener) accept() {
	defer l.wg.Done()
	for {
		c, err := l.ln.AcceptUnix()
		if err != nil {
			select {
			case <-l.done:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond) // EMFILE and the like: back off
			continue
		}
		l.wg.Add(1)
		go l.serve(c)
	}
}

// serve reads the frames of one connection. Like the inbox it answers
// nothing and closes after the sender's EOF.
func (l *Listener) serve(c *net.UnixConn) {
	defer l.wg.Done()
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(replyConnTimeout))
	stop := context.AfterFunc(l.cctx, func() { _ = c.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	rd := ndjson.NewReader(c)
	rd.MaxLine = maxNoticeLine
	for {
		line, err := rd.Next()
		if err == io.EOF {
			return
		}
		if errors.Is(err, ndjson.ErrLineTooLong) {
			l.skipped.Add(1)
			continue
		}
		if err != nil {
			return
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		n, err := ParseNotice(line)
		if err != nil {
			l.skipped.Add(1)
			continue
		}
		select {
		case l.ch <- n:
		case <-l.done:
			return
		}
	}
}

// Next returns the next notice, in arrival order.
func (l *Listener) Next(ctx context.Context) (Notice, error) {
	select {
	case n := <-l.ch:
		return n, nil
	case <-ctx.Done():
		return Notice{}, ctx.Err()
	case <-l.done:
		return Notice{}, ErrListenerClosed
	}
}

// Skipped is the number of received lines that were not frames
// (malformed, not objects, too long, cut off).
func (l *Listener) Skipped() int { return int(l.skipped.Load()) }

// Close stops listening, ends open connections and removes the socket.
func (l *Listener) Close() error {
	var err error
	l.once.Do(func() {
		close(l.done)
		l.cancel()
		err = l.ln.Close()
		l.wg.Wait()
	})
	return err
}

// ListenReply binds the reply socket of sender label for the session
// whose socket is targetSocket (see ReplyPath). The receiver sends
// receipts only into its own socket's directory, so that is where the
// socket goes, and only when that directory is this user's private one
// (a real directory owned by us, no group or other access, as Claude
// Code's cc-socks dirs are) and targetSocket in it is a socket of ours:
// a crafted record cannot make it create a file anywhere else. Call it
// once the target is known to be live (see Sender.SendAfter).
func ListenReply(targetSocket, label string) (*Listener, error) {
	if err := checkPrivateSocket(targetSocket); err != nil {
		return nil, fmt.Errorf("no reply socket: %w", err)
	}
	return Listen(ReplyPath(targetSocket, label))
}

// checkPrivateSocket checks that path is a socket owned by this user in
// a directory that only this user can enter.
func checkPrivateSocket(path string) error {
	if !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return fmt.Errorf("%s: not a clean absolute path", path)
	}
	uid := os.Geteuid()
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSocket == 0 {
		return fmt.Errorf("%s: not a socket (%s)", path, regular.Kind(fi.Mode()))
	}
	if owner(fi) != uid {
		return fmt.Errorf("%s: socket owned by uid %d, not by this user (uid %d)", path, owner(fi), uid)
	}
	dir := filepath.Dir(path)
	di, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	switch {
	case !di.IsDir():
		return fmt.Errorf("%s: not a directory (%s)", dir, regular.Kind(di.Mode()))
	case owner(di) != uid:
		return fmt.Errorf("%s: owned by uid %d, not by this user (uid %d); the reply socket goes only into a private dir", dir, owner(di), uid)
	case di.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%s: mode %04o, open to others; the reply socket goes only into a private (0700) dir", dir, di.Mode().Perm())
	}
	return nil
}

// owner is the uid owning a file, -1 when the system does not say.
func owner(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
