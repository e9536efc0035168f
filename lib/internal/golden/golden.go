// Package golden compares test output with files kept under testdata, and
// rewrites those files when the tests run with -update. It is for tests
// only: importing it registers the -update flag.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cache"
)

var update = flag.Bool("update", false, "rewrite golden files (and txtar scripts) instead of comparing with them")

// Update reports whether the test binary runs with -update.
func Update() bool { return *update }

// Check compares got with the file at path. With -update it writes got
// there instead (making its directory) and the check passes.
func Check(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, Diff(string(want), got))
	}
}

// Diff lists the first lines that differ between want and got.
func Diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 8; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %s\n  got  %s\n", i+1, wl, gl)
			shown++
		}
	}
	if len(w) != len(g) {
		fmt.Fprintf(&b, "(want %d lines, got %d)\n", len(w), len(g))
	}
	return b.String()
}

// Output is how a command's golden file holds one run: its exit code,
// then its stderr and stdout as sections (the field check in
// lib/internal/gendocs reads only the stdout section's records).
func Output(code int, stderr, stdout string) string {
	return fmt.Sprintf("exit %d\n-- stderr --\n%s-- stdout --\n%s", code, stderr, stdout)
}

// Main is a command's entry point: Run, or RunWith bound to a System.
type Main = func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

// Call runs a command in process with args and stdin ("": no input, as
// from a terminal: a nil reader, not an empty one) and returns its exit
// code, stdout and stderr. It is the one in-process runner of the
// command tests.
func Call(main Main, stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	var in io.Reader
	if stdin != "" {
		in = strings.NewReader(stdin)
	}
	code = main(args, in, &out, &errb)
	return code, out.String(), errb.String()
}

// Run runs a command in process (see Call) and returns its Output.
func Run(main Main, args []string, stdin string) string {
	code, out, errs := Call(main, stdin, args...)
	return Output(code, errs, out)
}

var (
	corpusTimeRE = regexp.MustCompile(`"(started_at|last_activity_at|updated_at)":"[^"]+"`)
	corpusSizeRE = regexp.MustCompile(`"size_bytes":[0-9]+`)
)

// Corpus writes the real-CLI corpus dir as $CORPUS in s, and the session
// times and sizes as $TIME and $SIZE: they change every time the corpus
// is generated (uuids, clock); a golden file keeps everything else.
func Corpus(s, dir string) string {
	s = strings.ReplaceAll(s, dir, "$CORPUS")
	s = corpusTimeRE.ReplaceAllString(s, `"$1":"$$TIME"`)
	return corpusSizeRE.ReplaceAllString(s, `"size_bytes":$$SIZE`)
}

// CopyTree copies the dir from (a corpus, say) to to, file by file, so
// that a test can grow, rewrite or delete what it reads without touching
// the repo's copy. The copy is settled (cache.Settle) when it returns.
func CopyTree(t testing.TB, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, de os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if de.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	cache.Settle()
}

// Build builds the command cmd/name (or, when name holds a slash, the
// package of that import path or ./-relative directory) into a temporary
// directory and returns the directory, for a test that runs the real
// binary in a subprocess (under a ulimit). env is added to the build's
// environment (CGO_ENABLED=0: a cgo binary's threads each reserve an 8 MB
// stack and fail under ulimit -v). Without the go command the test is
// skipped.
func Build(t testing.TB, name string, env ...string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command to build " + name)
	}
	dir := t.TempDir()
	if err := BuildTo(dir, name, env...); err != nil {
		t.Fatal(err)
	}
	return dir
}

// BuildTo is Build into dir, for a binary shared by several tests (built
// once, outside any one test).
func BuildTo(dir, name string, env ...string) error {
	pkg := name
	if !strings.Contains(name, "/") {
		pkg = "github.com/ccpipe/ccpipe/cmd/" + name
	}
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), pkg)
	build.Env = append(os.Environ(), env...)
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", name, err, out)
	}
	return nil
}
