package atomicfile

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/internal/fulldisk"
)

// In a dir ccpipe owns, whatever sits at the path is replaced: a
// symlink's target is never written, a FIFO never opened.
func TestOwnedReplaces(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("mine"), 0o600)
	p := filepath.Join(dir, "store")
	os.Symlink(victim, p)
	if err := WriteFileOwned(p, []byte("cache"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := read(t, victim); got != "mine" {
		t.Fatalf("the link's target was written: %q", got)
	}
	if fi, _ := os.Lstat(p); !fi.Mode().IsRegular() || read(t, p) != "cache" {
		t.Fatalf("link not replaced: %v", fi.Mode())
	}
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- WriteFileOwned(p, []byte("cache"), 0o600) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a FIFO in an owned dir was opened")
	}
	if fi, _ := os.Lstat(p); !fi.Mode().IsRegular() {
		t.Fatalf("FIFO not replaced: %v", fi.Mode())
	}
	os.Remove(p)
	os.Mkdir(p, 0o700)
	if err := WriteFileOwned(p, nil, 0o600); !errors.Is(err, syscall.EISDIR) {
		t.Fatalf("a dir: %v", err)
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("left %v", l)
	}
}

// CheckDir fails at once for what a long run would fail on at its end: a
// missing dir, a file where the dir should be, a read-only or full disk.
func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	if err := CheckDir(filepath.Join(dir, "out.json")); err != nil {
		t.Fatal(err)
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("left %v", l)
	}
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o600)
	for _, p := range []string{filepath.Join(dir, "missing", "out.json"), filepath.Join(dir, "file", "out.json"), dir} {
		if err := CheckDir(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v", p, err)
		}
	}
	// A read-only filesystem (root cannot write it either).
	ro := fulldisk.Mount(t, "16k")
	if out, err := exec.Command("mount", "-o", "remount,ro", ro).CombinedOutput(); err != nil {
		t.Skipf("cannot remount read-only: %v %s", err, out)
	}
	if err := CheckDir(filepath.Join(ro, "out.json")); !errors.Is(err, syscall.EROFS) {
		t.Errorf("a read-only dir: %v", err)
	}
}
