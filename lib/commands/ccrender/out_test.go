package ccrender

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/internal/fulldisk"
)

// --out never replaces what is not a regular file: a device node is
// written to (a private copy of /dev/null, so a regression cannot break
// the machine's), a FIFO's reader gets the page, a symlink stays a link
// and its target gets the page.
func TestOutSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	if os.Geteuid() == 0 {
		null := filepath.Join(dir, "null")
		if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
			if code, _, errs := run(t, "", "md", "--out", null, alpha); code != 0 {
				t.Fatalf("device: exit %d %s", code, errs)
			}
			if fi, _ := os.Lstat(null); fi.Mode()&os.ModeDevice == 0 {
				t.Errorf("--out replaced a device node with a %v", fi.Mode())
			}
		}
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if code, _, errs := run(t, "", "md", "--out", fifo, alpha); code != 0 {
		t.Fatalf("fifo: exit %d %s", code, errs)
	}
	select {
	case s := <-got:
		if !strings.HasPrefix(s, "# corpus-tools") {
			t.Errorf("the FIFO's reader got %q", s[:min(len(s), 40)])
		}
	case <-time.After(10 * time.Second):
		t.Error("the FIFO's reader got nothing")
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("--out replaced a FIFO with a %v", fi.Mode())
	}
	target := filepath.Join(dir, "page.md")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.md")
	os.Symlink("page.md", link)
	if code, _, errs := run(t, "", "md", "--out", link, alpha); code != 0 {
		t.Fatalf("link: exit %d %s", code, errs)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("--out replaced a symlink with a %v", fi.Mode())
	}
	if b, _ := os.ReadFile(target); !strings.HasPrefix(string(b), "# corpus-tools") {
		t.Errorf("the link's target holds %q", b[:min(len(b), 40)])
	}
}

// On a full disk --out keeps the old page, leaves no temporary file and
// says so once, naming the path asked for.
func TestOutFullDisk(t *testing.T) {
	dir := fulldisk.Mount(t, "16k")
	p := filepath.Join(dir, "s.html")
	os.WriteFile(p, []byte("old page"), 0o644)
	fulldisk.Fill(t, dir)
	code, _, errs := run(t, "", "html", "--out", p, alpha)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if strings.Count(errs, "no space left on device") != 1 || !strings.Contains(errs, p) || strings.Contains(errs, ".tmp") {
		t.Errorf("stderr %q: want the disk-full error once, naming %s", errs, p)
	}
	if b, _ := os.ReadFile(p); string(b) != "old page" {
		t.Errorf("the old page became %q", b[:min(len(b), 40)])
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".s.html*")); len(m) > 0 {
		t.Errorf("left %v", m)
	}
}
