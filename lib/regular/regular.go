// Package regular opens files that must be regular files: transcripts,
// registry records, keys, rules. A FIFO, a socket or a device where one
// of those is expected (planted by someone, or a symlink to /dev/zero)
// would block the open or the read forever, or never end; Open refuses it
// without blocking: the file is opened non-blocking and its type checked
// on the open descriptor, so there is no window between the check and
// the open.
package regular

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrNotRegular is wrapped by the error for a path that is not a regular
// file (after symlinks).
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError names the path and what it is.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: skipped: %s, not a regular file", e.Path, Kind(e.Mode))
}

func (e *NotRegularError) Unwrap() error { return ErrNotRegular }

// Kind names a file type in words: "a named pipe", "a socket", ...
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "an irregular file"
}

// Open opens path for reading if it is a regular file (following
// symlinks), else returns a *NotRegularError. It never blocks on the
// open: O_NONBLOCK makes the open of a FIFO without a writer return at
// once (and is without effect on a regular file's reads).
func Open(path string) (*os.File, error) {
	return open(path, 0, os.Stat)
}

// OpenOwned opens path for reading in a directory ccpipe owns (a cache,
// an archive): as Open, but a symlink is not followed (O_NOFOLLOW) and is
// refused as a *NotRegularError like a FIFO, so a link planted where a
// store lives is never read through; the caller treats it as no store and
// writes a new one over it (lib/atomicfile.CreateOwned).
func OpenOwned(path string) (*os.File, error) {
	return open(path, syscall.O_NOFOLLOW, os.Lstat)
}

// open is Open and OpenOwned: flag is added to the open's flags, and stat
// names what a failed open met (Lstat where links are not followed).
func open(path string, flag int, stat func(string) (os.FileInfo, error)) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|flag, 0)
	if err != nil {
		// A socket cannot be opened at all (ENXIO): say what it is.
		if fi, serr := stat(path); serr == nil && !fi.Mode().IsRegular() {
			return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return f, nil
}

// ReadFileOwned reads a whole regular file of at most limit bytes in a
// directory ccpipe owns (OpenOwned: no symlink followed); the size is
// checked on the open file before anything is allocated.
func ReadFileOwned(path string, limit int64) ([]byte, error) {
	f, err := OpenOwned(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, path, limit)
}

// Check returns a *NotRegularError when path exists and is not a regular
// file (after symlinks), without opening it; nil otherwise. It suits a
// caller that opens the file with its own system calls.
func Check(path string) error {
	fi, err := os.Stat(path)
	if err == nil && !fi.Mode().IsRegular() {
		return &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return nil
}

// ErrTooLarge is wrapped by ReadFile's error for a file over its limit.
var ErrTooLarge = errors.New("file too large")

// ReadFile reads a whole regular file of at most limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, path, limit)
}

func readLimited(f *os.File, path string, limit int64) ([]byte, error) {
	if fi, err := f.Stat(); err == nil && fi.Size() > limit {
		return nil, fmt.Errorf("%s: %w (over %d bytes)", path, ErrTooLarge, limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w (over %d bytes)", path, ErrTooLarge, limit)
	}
	return data, nil
}

// PasswdHome reads the home dir of uid from a passwd file (a regular
// file, read with a cap), or "": the home a shell's ~ gives when HOME is
// unset. (Not os/user: with cgo it links the C library, and cc-* stays
// pure Go.)
func PasswdHome(file string, uid int) string {
	data, err := ReadFile(file, 16<<20)
	if err != nil || uid < 0 {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, ":")
		if len(f) >= 6 && f[2] == strconv.Itoa(uid) && filepath.IsAbs(f[5]) {
			return f[5]
		}
	}
	return ""
}
