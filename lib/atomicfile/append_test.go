package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

// TestAppendLineConcurrent: lines appended at once by many callers, long
// enough that some cross a page, come out each once and whole, with no
// empty line between them (a caller that saw another's line half
// written used to start its own with a newline).
func TestAppendLineConcurrent(t *testing.T) {
	for round := range 50 {
		path := filepath.Join(t.TempDir(), "log")
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				line := fmt.Sprintf("%d %s\n", i, strings.Repeat("x", 300+i*37))
				if err := AppendLineOwned(path, []byte(line)); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int]int{}
		for j, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			var i int
			var xs string
			if _, err := fmt.Sscanf(l, "%d %s", &i, &xs); err != nil || len(xs) != 300+i*37 {
				t.Fatalf("round %d, line %d: %.40q is not a whole line", round, j+1, l)
			}
			seen[i]++
		}
		for i := range 40 {
			if seen[i] != 1 {
				t.Fatalf("round %d: line %d appended %d times", round, i, seen[i])
			}
		}
	}
}

// TestAppendLineLockHeld: a log that another program keeps locked is
// still appended to (after a bounded wait), not waited on for good.
func TestAppendLineLockHeld(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, []byte("a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	holder, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := syscall.Flock(int(holder.Fd()), syscall.LOCK_EX); err != nil {
		t.Skipf("no flock here: %v", err)
	}
	if err := AppendLine(path, []byte("b\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "a\nb\n" {
		t.Fatalf("log %q, want %q", b, "a\nb\n")
	}
}
