package transcript

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArchiveCancelledLeavesNothing: an archive stopped by a signal (its
// context cancelled) leaves no temporary file and no half copy.
func TestArchiveCancelledLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "cfg", "projects", "-p", "aaaaaaaa-0000-4000-8000-000000000001.jsonl")
	os.MkdirAll(filepath.Dir(src), 0o755)
	if err := os.WriteFile(src, []byte(strings.Repeat(`{"type":"user","uuid":"u"}`+"\n", 100000)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	arc := filepath.Join(dir, "arc")
	if err := Archive(ctx, src, arc, func(ArchiveResult) error { return nil }); err == nil {
		t.Fatal("a cancelled archive succeeded")
	}
	filepath.WalkDir(arc, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}
