//go:build unix

package registry

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ccpipe/ccpipe/lib/regular"
)

// TestFIFOKeyAndRecordRefused: a FIFO planted where a key or a record is
// expected is refused at once, never opened for a blocking read (issue 13
// item 3).
func TestFIFOKeyAndRecordRefused(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(KeyPath(dir, 42, "/tmp/s.sock"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadKey(dir, 42, "/tmp/s.sock"); !errors.Is(err, regular.ErrNotRegular) {
		t.Errorf("ReadKey on a FIFO: %v", err)
	}
	rec := filepath.Join(dir, "43.json")
	if err := syscall.Mkfifo(rec, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(rec, 43); !errors.Is(err, regular.ErrNotRegular) {
		t.Errorf("ReadFile on a FIFO: %v", err)
	}
}
