//go:build unix

package regular

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenEveryFileType is the file-type class of issue 13: whatever sits
// where a regular file is expected, Open returns at once, and only a
// regular file (or a symlink to one) opens.
func TestOpenEveryFileType(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "reg")
	if err := os.WriteFile(reg, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	link := func(name, to string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(to, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		path string
		ok   bool
		kind string
	}{
		{reg, true, ""},
		{link("to-reg", reg), true, ""},
		{fifo, false, "named pipe"},
		{link("to-fifo", fifo), false, "named pipe"},
		{sock, false, "socket"},
		{link("to-zero", "/dev/zero"), false, "character device"},
		{"/dev/null", false, "character device"},
		{dir, false, "directory"},
	}
	for _, c := range cases {
		done := make(chan error, 1)
		go func() {
			f, err := Open(c.path)
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if c.ok != (err == nil) {
				t.Errorf("Open(%s) = %v, want ok=%v", c.path, err, c.ok)
				continue
			}
			if !c.ok && (!errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), c.kind)) {
				t.Errorf("Open(%s) = %v, want a not-regular error naming %q", c.path, err, c.kind)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Open(%s) blocked", c.path)
		}
	}
}

func TestReadFileLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(p, 5); err != nil || string(b) != "12345" {
		t.Errorf("ReadFile(5) = %q, %v", b, err)
	}
	if _, err := ReadFile(p, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile(4) = %v, want ErrTooLarge", err)
	}
	if _, err := ReadFile("/dev/zero", 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(/dev/zero) = %v, want ErrNotRegular", err)
	}
}
