package transcript

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// TestCorpus decodes every transcript of the real-CLI corpus (made by the
// oracle's generator in testdata/corpus/claude): every line must decode
// aligned, with no unknown record type or block, and the per-file summary
// (record types, block types, subagents) must match the golden file.
func TestCorpus(t *testing.T) {
	root := "../../testdata/corpus/claude/projects"
	if _, err := os.Stat(root); err != nil {
		t.Skip("no real-CLI corpus in testdata/corpus/claude yet")
	}
	var out strings.Builder
	err := filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		if _, ok := TrimSuffix(p); !ok {
			return nil
		}
		types := map[string]int{}
		blocks := map[string]int{}
		d, err := ReadFile(p, Options{Decode: true}, func(l *Line) error {
			types[l.Entry.Type]++
			if m := l.Entry.Message; m != nil {
				for _, b := range m.Content {
					blocks[b.Type]++
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if !d.Aligned || d.Malformed > 0 || len(d.UnknownTypes) > 0 || len(d.UnknownBlocks) > 0 {
			t.Errorf("%s: %+v", rel, d)
		}
		fmt.Fprintf(&out, "%s lines=%d incomplete=%v types=%s blocks=%s\n", rel, d.Lines, d.IncompleteLastLine, counts(types), counts(blocks))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/corpus.golden", out.String())
}

func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = fmt.Sprintf("%s:%d", k, m[k])
	}
	return strings.Join(keys, ",")
}
