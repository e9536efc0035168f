package load

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cli"
)

func TestPrices(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(good, []byte("- {name: claude-sonnet-5-5, inputPerMtok: 2, outputPerMtok: 10, cacheReadPerMtok: 0.2, cacheWritePerMtok: 2.5}\n"), 0o644)
	os.WriteFile(bad, []byte(`[{"name": "x"}]`), 0o644)
	cat, data, err := Prices(good)
	if err != nil || cat == nil || len(data) == 0 {
		t.Fatalf("good file: %v %v %d", cat, err, len(data))
	}
	for _, path := range []string{bad, filepath.Join(dir, "missing.json")} {
		_, _, err := Prices(path)
		var ue *cli.UsageError
		if !errors.As(err, &ue) || !strings.HasPrefix(ue.Msg, "--prices") || !strings.Contains(ue.Msg, filepath.Base(path)) {
			t.Errorf("%s: %v, want a usage error naming --prices and the file", path, err)
		}
	}
}

func TestProfiles(t *testing.T) {
	cfg := t.TempDir()
	sys := cli.System{Getenv: func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return cfg
		}
		return ""
	}}
	if profs := Profiles(sys); len(profs) != 1 {
		t.Fatalf("Profiles: %v", profs)
	}
	if _, err := NamedProfiles(Profiles(sys), []string{"nope"}); err == nil {
		t.Fatal("an unknown --profile name is no error")
	} else if ue := (*cli.UsageError)(nil); !errors.As(err, &ue) {
		t.Errorf("unknown name: %v, want a usage error", err)
	}
	var errb strings.Builder
	c := &cli.Command{Sys: &cli.System{}, Name: "cc-test", Run: func(env *cli.Env, _ []string) error {
		_, err := DiscoverProfiles(env, cli.System{})
		return err
	}}
	if code := c.Main(nil, nil, &strings.Builder{}, &errb); code != 1 || !strings.Contains(errb.String(), "no home directory") {
		t.Errorf("no home: exit %d, %q", code, errb.String())
	}
}

// TestWalkDirIsWalkSlow: walkDir (each dir's listing at hand, no lstat
// per session dir) adds the paths and skips the dirs walkSlow
// (filepath.WalkDir) does, in the same order, on testdata's trees and on
// one with every case: a session dir beside its transcript (plain, .gz,
// .zst, a dangling link), a dir named by a uuid with no transcript beside
// it (walked), the dirs that hold none, links, a dir that cannot be
// listed (but by root), and the top given with a trailing separator or as
// ".".
func TestWalkDirIsWalkSlow(t *testing.T) {
	dir := t.TempDir()
	u := func(n int) string {
		return strings.Repeat(string("0123456789abcdef"[n]), 8) + "-1111-4222-8333-444455556666"
	}
	files := []string{
		"p1/" + u(0) + ".jsonl", "p1/" + u(0) + "/subagents/agent-1.jsonl", "p1/" + u(0) + "/tool-results/x.txt",
		"p1/" + u(1) + ".jsonl.gz", "p1/" + u(1) + "/subagents/agent-2.jsonl",
		"p1/" + u(2) + ".jsonl.zst", "p1/" + u(2) + "/deep/" + u(5) + ".jsonl",
		"p1/" + u(3) + "/" + u(6) + ".jsonl", // no transcript beside it: walked
		"p1/memory/" + u(7) + ".jsonl", "p1/notes.txt", "p1/" + u(4) + ".json",
		"p2/sub/" + u(8) + ".jsonl", "p2/" + u(9) + ".jsonl",
		"p3/" + u(10) + "/" + u(11) + ".jsonl", // u(10) has a dangling link beside it
		"p4/" + u(12) + ".jsonl",
	}
	for _, f := range files {
		path := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range [][2]string{
		{"missing", "p3/" + u(10) + ".jsonl"}, {"../p2", "p1/linked"}, {u(9) + ".jsonl", "p2/link.jsonl"},
	} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	// A dir that cannot be listed (root lists it all the same: then both
	// walks do).
	if err := os.Chmod(filepath.Join(dir, "p4"), 0o000); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Join(dir, "p4"), 0o755)
	walk := func(fn func(string, func(string) error, func(error)) error, top string) []string {
		var got []string
		err := fn(top, func(p string) error { got = append(got, "add "+p); return nil },
			func(err error) { got = append(got, "skip "+err.Error()) })
		if err != nil {
			got = append(got, "error "+err.Error())
		}
		return got
	}
	fast := func(top string, add func(string) error, skip func(error)) error {
		return walkDir(top, true, add, skip)
	}
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	tops := []string{dir, dir + string(filepath.Separator), "../../../../testdata", "../../../../testdata/corpus/claude/projects/"}
	for _, top := range tops {
		want, got := walk(walkSlow, top), walk(fast, top)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("walk of %s:\n%s\nwant (filepath.WalkDir):\n%s", top, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if top == dir && len(want) < 8 {
			t.Fatalf("walk of %s: %d lines:\n%s", top, len(want), strings.Join(want, "\n"))
		}
	}
	if err := os.Chdir(filepath.Join(dir, "p1")); err != nil {
		t.Fatal(err)
	}
	if want, got := walk(walkSlow, "."), walk(fast, "."); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("walk of .:\n%s\nwant (filepath.WalkDir):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// An add that fails stops both walks with its error.
	stop := errors.New("stop")
	for _, fn := range []func(string, func(string) error, func(error)) error{walkSlow, fast} {
		n := 0
		err := fn(dir, func(string) error { n++; return stop }, func(error) {})
		if !errors.Is(err, stop) || n != 1 {
			t.Fatalf("an add's error: %v after %d adds", err, n)
		}
	}
}
