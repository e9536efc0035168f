package atomicfile

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// AppendLine appends line (one whole line, its newline included) to the
// log at path, a path the user chose (--log): a symlink there is
// followed, and a device or FIFO (/dev/stderr) is written to as it is.
func AppendLine(path string, line []byte) error {
	return appendLine(path, line, 0)
}

// AppendLineOwned appends line to a log in a directory ccpipe owns (the
// status line's rate-limit ledger): a symlink at path is not followed
// (O_NOFOLLOW: the append fails and nothing is written), and anything
// but a regular file is refused unopened for writing.
func AppendLineOwned(path string, line []byte) error {
	return appendLine(path, line, syscall.O_NOFOLLOW|syscall.O_NONBLOCK)
}

// appendLine is the one append of a log line: O_APPEND and one write(),
// so concurrent appends never interleave; a line left cut by an earlier
// crash does not swallow this one (it starts on a fresh line); a short
// write (a full disk) is cut back off, leaving no partial line. A regular
// file is locked (flock) from the look at its last byte to the write: a
// line being appended by another call can be seen half written (the size
// moves a page at a time), and this one would then start with a newline
// of its own and leave an empty line.
func appendLine(path string, line []byte, flag int) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_RDWR|flag, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if flag != 0 && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file, not written", path)
	}
	if fi.Mode().IsRegular() && lock(f) == nil { // a file system without flock: appended unlocked, as before
		if fi, err = f.Stat(); err != nil { // as it is now the lock is held
			return err
		}
	}
	if fi.Mode().IsRegular() && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	n, err := f.Write(line)
	if err != nil {
		// Cut back from where this write ended (the descriptor's offset,
		// not the file's size: a line appended since by another call
		// must not leave this one's half behind).
		if end, serr := f.Seek(0, io.SeekCurrent); n > 0 && serr == nil && fi.Mode().IsRegular() && end >= int64(n) {
			_ = f.Truncate(end - int64(n))
		}
		return err
	}
	return f.Close()
}

// OpenAppendOwned opens a file that exists in a directory ccpipe owns to
// append to it (a cache store's journal): a symlink is not followed and
// a FIFO is not waited on (the caller checks the file is regular before
// it writes); nothing is created.
func OpenAppendOwned(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// lock takes an exclusive flock on f, released when f is closed. An
// append holds it for microseconds; one held for longer (another program
// locking a user's log) is waited for at most lockWait, and the line is
// then appended unlocked: a status line is not kept waiting.
func lock(f *os.File) error {
	c, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := c.Control(func(fd uintptr) {
		deadline := time.Now().Add(lockWait)
		for {
			lerr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			switch {
			case lerr == syscall.EINTR:
			case lerr == syscall.EWOULDBLOCK && time.Now().Before(deadline):
				time.Sleep(100 * time.Microsecond)
			default:
				return
			}
		}
	}); err != nil {
		return err
	}
	return lerr
}

// lockWait bounds the wait for another holder of a log's lock.
const lockWait = 100 * time.Millisecond
