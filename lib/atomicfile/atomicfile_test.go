package atomicfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/fulldisk"
)

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// leftovers lists the temporary files left in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	return m
}

func TestRegularAndMissing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.html")
	if err := WriteFile(p, []byte("one"), 0o640); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
		t.Errorf("new file mode %v, want 0640", fi.Mode().Perm())
	}
	os.Chmod(p, 0o600)
	if err := WriteFile(p, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "two" {
		t.Errorf("got %q", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file mode %v, want its old 0600", fi.Mode().Perm())
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("left %v", l)
	}
}

// A symlink is followed: the target gets the new content, the link stays.
func TestSymlinkKept(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "real"), 0o755)
	target := filepath.Join(dir, "real", "page.html")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.html")
	if err := os.Symlink("real/page.html", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if got := read(t, target); got != "new" {
		t.Errorf("target %q, want new", got)
	}
	// A dangling link: the file is created where it points.
	dangling := filepath.Join(dir, "dangling")
	os.Symlink("real/missing.html", dangling)
	if err := WriteFile(dangling, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "real", "missing.html")); got != "x" {
		t.Errorf("dangling target %q", got)
	}
	if fi, _ := os.Lstat(dangling); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the dangling link was replaced")
	}
}

// A device or FIFO is written to, never renamed over.
func TestDeviceAndFIFO(t *testing.T) {
	if err := WriteFile(os.DevNull, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Fatalf("%s is no longer a device: %v %v", os.DevNull, fi.Mode(), err)
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := WriteFile(fifo, []byte("through the pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("reader got %q", s)
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", fi.Mode())
	}
	// A link to a device: the device is written, the link kept.
	link := filepath.Join(dir, "null")
	os.Symlink(os.DevNull, link)
	if err := WriteFile(link, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link to the device was replaced")
	}
}

func TestDirectoryRefused(t *testing.T) {
	dir := t.TempDir()
	err := WriteFile(dir, []byte("x"), 0o644)
	if !errors.Is(err, syscall.EISDIR) {
		t.Fatalf("err %v, want EISDIR", err)
	}
}

type failWriter struct{ after int }

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.after {
		return w.after, syscall.ENOSPC
	}
	w.after -= len(p)
	return len(p), nil
}

// A failed write leaves the old file and no temporary file; the error
// names the path asked for, not the temporary file.
func TestFailedWriteKeepsOld(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.ndjson")
	os.WriteFile(p, []byte("good"), 0o644)
	f, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.w = &failWriter{after: 3}
	if _, err := f.Write([]byte("partial new content")); err == nil {
		t.Fatal("no error")
	}
	err = f.Commit()
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "writing "+p+":") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("commit err %v", err)
	}
	if got := read(t, p); got != "good" {
		t.Errorf("target %q, want the old content", got)
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("left %v", l)
	}
	f.Abort() // no-op after Commit
}

// The same on a real full disk: a small tmpfs (root only).
func TestFullDisk(t *testing.T) {
	dir := fulldisk.Mount(t, "16k")
	p := filepath.Join(dir, "out.ndjson")
	os.WriteFile(p, []byte("good"), 0o644)
	err := WriteFile(p, bytes.Repeat([]byte("x"), 64<<10), 0o644)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err %v, want ENOSPC", err)
	}
	if got := read(t, p); got != "good" {
		t.Errorf("target %q, want the old content", got)
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("left %v", l)
	}
}
