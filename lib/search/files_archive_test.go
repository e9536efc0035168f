package search

import (
	"os"
	"path/filepath"
	"testing"
)

// In an archive, tool-results hold zstd copies and their .idx sidecars:
// the copies are searched, the sidecars are not.
func TestSessionFilesSkipsSidecars(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "aaaaaaaa-0000-4000-8000-000000000001.jsonl.zst")
	tools := filepath.Join(dir, "aaaaaaaa-0000-4000-8000-000000000001", "tool-results")
	os.MkdirAll(tools, 0o755)
	for _, name := range []string{"x.txt.zst", "x.txt.zst.idx", "y.txt", "z.idx"} {
		os.WriteFile(filepath.Join(tools, name), nil, 0o644)
	}
	os.WriteFile(tr, nil, 0o644)
	files, err := SessionFiles(tr)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, filepath.Base(f.Path))
	}
	want := []string{filepath.Base(tr), "x.txt.zst", "y.txt", "z.idx"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
