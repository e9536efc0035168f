package contract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
)

// The committed corpus (testdata/corpus, written by the real CLI) must
// still pass the shape checker, and MANIFEST.md must list every main
// transcript. Runs without the CLI.
func TestCorpusShapes(t *testing.T) {
	root := filepath.Join("..", "..", "..", "testdata", "corpus")
	files, _ := filepath.Glob(filepath.Join(root, "claude", "projects", "*", "*.jsonl"))
	subs, _ := filepath.Glob(filepath.Join(root, "claude", "projects", "*", "*", "subagents", "*.jsonl"))
	if len(files) == 0 {
		t.Fatalf("no transcripts under %s: regenerate with go run ./lib/internal/claudetest/cmd/gencorpus", root)
	}
	manifest, err := os.ReadFile(filepath.Join(root, "MANIFEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for _, f := range append(files, subs...) {
		recs, err := claudetest.ReadJSONL(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range recs {
			for _, k := range ShapeKey(r) {
				types[k]++
			}
			for _, err := range Check(r) {
				t.Errorf("%s:%d: %v", filepath.Base(f), i+1, err)
			}
		}
		rel, _ := filepath.Rel(filepath.Join(root, "claude"), f)
		if !strings.Contains(string(manifest), "`"+rel+"`") {
			t.Errorf("MANIFEST.md does not list %s", rel)
		}
	}
	// The corpus is meant to cover these shapes; losing one means a session
	// no longer does what MANIFEST.md says.
	for _, k := range []string{"user", "user/tool_result", "assistant", "attachment", "system/api_error",
		"system/compact_boundary", "system/turn_duration", "queue-operation", "custom-title", "cost-state"} {
		if types[k] == 0 {
			t.Errorf("no %s record in the corpus", k)
		}
	}
}
