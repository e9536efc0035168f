package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.failed = true
	r.msg = format
}
func (r *recorder) Fatalf(format string, a ...any) { r.Errorf(format, a...) }
func (r *recorder) Fatal(a ...any)                 { r.failed = true }

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Check(r, path, "a\nb\n")
	if r.failed {
		t.Error("equal output must pass")
	}
	r = &recorder{TB: t}
	Check(r, path, "a\nc\n")
	if !r.failed {
		t.Error("different output must fail")
	}
	r = &recorder{TB: t}
	Check(r, path+".missing", "a\n")
	if !r.failed {
		t.Error("a missing golden file must fail")
	}
}

func TestDiff(t *testing.T) {
	d := Diff("a\nb\nc", "a\nx\nc\nd")
	if !strings.Contains(d, "line 2:\n  want b\n  got  x\n") || !strings.Contains(d, "line 4:") || !strings.Contains(d, "want 3 lines, got 4") {
		t.Errorf("diff: %q", d)
	}
	if Diff("same", "same") != "" {
		t.Error("no diff for equal text")
	}
}
