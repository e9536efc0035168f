// Package atomicfile is the one way ccpipe writes a file it was asked to
// write (--out, --out-dir, caches): a reader sees the old file or the
// new one, never half of one, and a failed write leaves the old file as
// it was.
//
// Two kinds of path, two rules:
//
// A path the user chose (Create, WriteFile: --out, --out-dir): a regular
// file or a missing path is written to a temporary file in the same
// directory, synced and renamed over it. A symlink is followed and its
// target replaced, the link kept. Anything else (a device such as
// /dev/null or /dev/stdout, a FIFO, a socket) is opened and written to
// directly: renaming over it would replace a system file, not write to it.
//
// A path in a directory ccpipe owns (CreateOwned, WriteFileOwned: the
// caches, the archive copies and their sidecars): nothing there is
// followed or written through. Whatever sits at the path (a symlink, a
// FIFO, a device, a regular file) is replaced by the new regular file;
// a symlink's target is never touched. Someone who planted a link there
// to a file of the user's gets the link replaced, not the file.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// File is one write in progress. Write to it, then Commit or Abort; an
// Abort after a Commit is a no-op, so `defer f.Abort()` is safe.
type File struct {
	f      *os.File
	w      io.Writer // f, or a test's failing writer
	path   string    // the path asked for, for messages
	target string    // where the rename lands (the symlink's target)
	temp   bool      // f is a temporary file to rename
	done   bool
	err    error // the first write error
}

// Create starts a write to path. perm is the mode of a new file; an
// existing regular file keeps its mode (and, for root, its owner).
func Create(path string, perm os.FileMode) (*File, error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return nil, &fs.PathError{Op: "write", Path: path, Err: syscall.EISDIR}
	case err == nil && !fi.Mode().IsRegular():
		// A device, FIFO or socket: write to it as it is.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			f, err = os.OpenFile(path, os.O_WRONLY, 0) // some devices refuse O_TRUNC
		}
		if err != nil {
			return nil, err
		}
		return &File{f: f, w: f, path: path, target: path}, nil
	case err == nil:
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil, err
		}
		return createTemp(path, target, fi.Mode().Perm(), fi)
	case errors.Is(err, fs.ErrNotExist):
		target, err := danglingTarget(path)
		if err != nil {
			return nil, err
		}
		return createTemp(path, target, perm, nil)
	default:
		return nil, err
	}
}

// CreateOwned starts a write to path in a directory ccpipe owns: the new
// regular file is renamed over whatever is at path (a symlink itself, not
// its target; a FIFO or a device, never opened). Only a directory there
// is an error. perm is the file's mode.
func CreateOwned(path string, perm os.FileMode) (*File, error) {
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.IsDir():
		return nil, &fs.PathError{Op: "write", Path: path, Err: syscall.EISDIR}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	return createTemp(path, path, perm, nil)
}

// WriteFileOwned writes data to path through CreateOwned and Commit.
func WriteFileOwned(path string, data []byte, perm os.FileMode) error {
	f, err := CreateOwned(path, perm)
	if err != nil {
		return err
	}
	return writeAll(f, data)
}

// CheckDir says, before a long run, whether a file can be created at
// path: its directory exists, is a directory, and takes a new file (one
// is created and removed at once). A command whose output is the work of
// minutes (a recording) calls it before it starts, so that a missing or
// read-only directory fails at once and loses nothing.
func CheckDir(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("writing %s: directory %s: %w", path, dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("writing %s: %s is not a directory", path, dir)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return &fs.PathError{Op: "write", Path: path, Err: syscall.EISDIR}
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("writing %s: %w", path, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// danglingTarget is the path a write to a missing path creates: the path
// itself, or the end of its chain of symlinks.
func danglingTarget(path string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", &fs.PathError{Op: "write", Path: path, Err: syscall.ELOOP}
}

func createTemp(path, target string, perm os.FileMode, old os.FileInfo) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	fail := func(err error) (*File, error) {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if st, ok := oldOwner(old); ok && os.Geteuid() == 0 {
		_ = f.Chown(int(st.Uid), int(st.Gid)) // best effort: keep a file's owner when root rewrites it
	}
	return &File{f: f, w: f, path: path, target: target, temp: true}, nil
}

func oldOwner(fi os.FileInfo) (*syscall.Stat_t, bool) {
	if fi == nil {
		return nil, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return st, ok
}

// Name is the path Create was given.
func (f *File) Name() string { return f.path }

// Err is the first write error, nil while every write succeeded.
func (f *File) Err() error { return f.err }

// Write writes to the temporary file (or the device). After the first
// error every Write returns it, and Commit does too.
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		f.err = f.named(err)
	}
	return n, f.err
}

// Commit makes the write visible: sync, close, rename over the target,
// sync the directory. On any error the temporary file is removed and the
// target is what it was.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: commit after commit or abort")
	}
	f.done = true
	if !f.temp {
		err := f.err
		if cerr := f.f.Close(); err == nil {
			err = cerr
		}
		return f.named(err)
	}
	err := f.err
	if err == nil {
		err = f.f.Sync()
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.f.Name(), f.target)
	}
	if err != nil {
		os.Remove(f.f.Name())
		return f.named(err)
	}
	if d, err := os.Open(filepath.Dir(f.target)); err == nil {
		_ = d.Sync() // the rename itself survives a crash; best effort
		d.Close()
	}
	return nil
}

// Abort drops the write: the temporary file is removed, the target left
// as it was. A no-op after Commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.f.Close()
	if f.temp {
		os.Remove(f.f.Name())
	}
}

// named puts the path asked for in an error about the temporary file,
// which the user never named: "writing out.html: no space left on device".
func (f *File) named(err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return fmt.Errorf("writing %s: %w", f.path, err)
}

// WriteFile writes data to path through Create and Commit.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	return writeAll(f, data)
}

func writeAll(f *File, data []byte) error {
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
