package ccgrep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A term that sits only in a line cc-grep cannot decode (not JSON: a
// line cut short, then another written after it) is no match, but never
// a silent one: stderr says how many lines holding a term were skipped
// and names the first (file and line), the same from a scan (--no-cache),
// the run that builds the index, and a run answered by the index; with
// --matches too (issue 36).
func TestUndecodableLineSaid(t *testing.T) {
	h, proj := home(t)
	path := filepath.Join(proj, idOld+".jsonl")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"user","message":{"role":"user","content":"the zebracorn is` + "\n")
	f.WriteString(`{"type":"user","message":{"role":"user","content":"unrelated"}}` + "\n")
	f.WriteString(`{"type":"user","message":{"role":"user","content":"a zebracorn again\u00"}}` + "\n")
	f.Close()
	want := "2 lines holding a term could not be decoded and were skipped (the first: " + path + ":2)"
	for _, args := range [][]string{
		{"--no-cache", "zebracorn"},
		{"zebracorn"}, // builds the index
		{"zebracorn"}, // from the index
		{"--matches", "zebracorn"},
		{"--no-cache", "--matches", "zebracorn"},
	} {
		code, out, errs := run(t, h, "", args...)
		if code != 1 || out != "" {
			t.Errorf("cc-grep %q: exit %d, stdout %q, want 1 and nothing", args, code, out)
		}
		if !strings.Contains(errs, want) {
			t.Errorf("cc-grep %q: stderr %q does not say %q", args, errs, want)
		}
	}
	// A line that holds no term is not named.
	if _, _, errs := run(t, h, "", "--no-cache", "flaky"); strings.Contains(errs, "decoded") {
		t.Errorf("cc-grep flaky: %q", errs)
	}
}
