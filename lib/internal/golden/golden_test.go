package golden

import (
	"fmt"
	"io"
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

func TestRun(t *testing.T) {
	echo := func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		if stdin == nil {
			fmt.Fprintln(stderr, "no input")
			return 2
		}
		b, _ := io.ReadAll(stdin)
		fmt.Fprintf(stdout, "%s %s", strings.Join(args, ","), b)
		return 0
	}
	if got := Run(echo, []string{"a", "b"}, "in\n"); got != "exit 0\n-- stderr --\n-- stdout --\na,b in\n" {
		t.Errorf("with input: %q", got)
	}
	if got := Run(echo, nil, ""); got != "exit 2\n-- stderr --\nno input\n-- stdout --\n" {
		t.Errorf("without input (a nil reader): %q", got)
	}
}

func TestCorpus(t *testing.T) {
	in := `{"transcript_path":"/x/corpus/p/1.jsonl","started_at":"2026-11-30T10:46:46.279Z","size_bytes":1234,"title":"started_at"}`
	want := `{"transcript_path":"$CORPUS/p/1.jsonl","started_at":"$TIME","size_bytes":$SIZE,"title":"started_at"}`
	if got := Corpus(in, "/x/corpus"); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
