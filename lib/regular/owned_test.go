package regular

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// In ccpipe's own dirs a symlink is not followed and a FIFO is refused
// without blocking; a file over the limit is refused on its size.
func TestOpenOwned(t *testing.T) {
	dir := t.TempDir()
	file, link, fifo := filepath.Join(dir, "file"), filepath.Join(dir, "link"), filepath.Join(dir, "fifo")
	os.WriteFile(file, []byte("data"), 0o600)
	os.Symlink(file, link)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFileOwned(file, 10); err != nil || string(b) != "data" {
		t.Fatalf("%q %v", b, err)
	}
	for _, p := range []string{link, fifo} {
		if _, err := ReadFileOwned(p, 10); !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: %v", p, err)
		}
	}
	big := filepath.Join(dir, "big")
	f, _ := os.Create(big)
	f.Truncate(8 << 30)
	f.Close()
	if _, err := ReadFileOwned(big, 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Errorf("big: %v", err)
	}
}
