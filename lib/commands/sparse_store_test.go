//go:build linux

package commands_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// TestSparseStoresBounded is issue 36's 8 GB sparse cache store, at the
// commands: every store a warm run made (the usage cache, the kinds'
// caches, the session lists, cc-grep's index and its trigram file,
// cc-otel's events) is replaced by an 8 GB sparse file, and each command
// answers as with --no-cache, exit 0, under a 300 MB data limit: the
// stores are refused on their header and size, never read whole (which
// ran out of memory on every run).
func TestSparseStoresBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds four commands and runs them under ulimit -d")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	root := t.TempDir()
	cfg := filepath.Join(root, "claude")
	golden.CopyTree(t, filepath.Join("..", "..", "testdata", "corpus", "claude"), cfg)
	cacheDir := filepath.Join(root, "cache")
	bins := map[string]string{}
	for _, name := range []string{"cc-extract", "cc-grep", "cc-sessions", "cc-otel"} {
		bins[name] = filepath.Join(golden.Build(t, name), name)
	}
	runs := [][]string{
		{"cc-extract", "usage", "--sum", "session"},
		{"cc-extract", "tools"},
		{"cc-extract", "prompts"},
		{"cc-grep", "Exercise"},
		{"cc-sessions"},
		{"cc-otel", "--dry-run"},
	}
	run := func(limit bool, args ...string) (string, string, error) {
		line := bins[args[0]] + " " + strings.Join(args[1:], " ")
		if limit {
			line = "ulimit -d 300000; exec " + line
		}
		cmd := exec.Command("sh", "-c", line)
		cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+cfg, "XDG_CACHE_HOME="+cacheDir, "HOME="+filepath.Join(root, "home"), "CCPIPE_CACHE=")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	for _, args := range runs { // warm: every store written
		if _, stderr, err := run(false, args...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
	}
	var stores []string
	filepath.WalkDir(filepath.Join(cacheDir, "ccpipe"), func(p string, de os.DirEntry, err error) error {
		if err == nil && de.Type().IsRegular() {
			stores = append(stores, p)
		}
		return nil
	})
	var names []string
	for _, p := range stores {
		names = append(names, filepath.Base(p))
	}
	for _, want := range []string{"usage-sums.cc-extract.cache", "extract-tools.cc-extract.cache", "extract-prompts.cc-extract.cache",
		"grep-index.cc-grep.cache", "sessions.cc-sessions.cache", "otel-events.cc-otel.cache", ".trgm"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Fatalf("no store %s after a warm run: %v", want, names)
		}
	}
	for _, p := range stores {
		if err := os.Truncate(p, 0); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, 8<<30); err != nil {
			t.Skipf("no sparse file here: %v", err)
		}
	}
	for _, args := range runs {
		at := 1 // flags before the terms (cc-grep), after a subcommand (cc-extract)
		if args[0] == "cc-extract" {
			at = 2
		}
		noCache := append(append(append([]string{}, args[:at]...), "--no-cache"), args[at:]...)
		want, _, err := run(false, noCache...)
		if err != nil {
			t.Fatalf("%v --no-cache: %v", args, err)
		}
		got, stderr, err := run(true, args...)
		if err != nil {
			t.Errorf("%v with 8 GB stores under ulimit -d 300000: %v\nstderr: %.400s", args, err, stderr)
			continue
		}
		if got != want || want == "" {
			t.Errorf("%v with 8 GB stores differs from --no-cache:\n got %.300q\nwant %.300q", args, got, want)
		}
	}
}
