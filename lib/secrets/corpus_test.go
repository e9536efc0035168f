package secrets

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestCorpusRawTextHasNoMatch: not one rule matches anywhere in the bytes
// of the real-CLI corpus (keys, ids, hashes and paths included), which is
// stricter than cc-redact's check of string values.
func TestCorpusRawTextHasNoMatch(t *testing.T) {
	n := 0
	err := filepath.WalkDir("../../testdata/corpus", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		for _, m := range Default.Find(b) {
			t.Errorf("%s: %v", path, m)
		}
		return nil
	})
	if err != nil || n < 10 {
		t.Fatalf("walked %d files: %v", n, err)
	}
}
