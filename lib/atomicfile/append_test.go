package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// AppendLine (a path the user chose) follows a symlink and starts after a
// cut line on a fresh one; AppendLineOwned (ccpipe's own dir) follows no
// link and writes nothing into a FIFO.
func TestAppendLine(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte(`{"cut`), 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink(target, link)
	if err := AppendLine(link, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "{\"cut\n{}\n" {
		t.Errorf("through the link: %q", b)
	}
	if err := AppendLineOwned(link, []byte("{}\n")); err == nil {
		t.Error("AppendLineOwned followed a symlink")
	}
	if b, _ := os.ReadFile(target); string(b) != "{\"cut\n{}\n" {
		t.Errorf("the link's target changed: %q", b)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	if err := AppendLineOwned(fifo, []byte("{}\n")); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a FIFO: %v", err)
	}
}
