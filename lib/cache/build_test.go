package cache

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"
)

// fakeStat is an executable's stat.
type fakeStat struct {
	os.FileInfo
	size  int64
	mtime time.Time
}

func (f fakeStat) Size() int64        { return f.size }
func (f fakeStat) ModTime() time.Time { return f.mtime }

// info is the build info Go stamps into a command of ccpipe.
func info(pkg, version string, settings ...debug.BuildSetting) *debug.BuildInfo {
	return &debug.BuildInfo{GoVersion: "go1.26.8", Path: pkg,
		Main:     debug.Module{Path: "github.com/ccpipe/ccpipe", Version: version},
		Settings: append([]debug.BuildSetting{{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "amd64"}}, settings...)}
}

func vcs(rev, modified string) []debug.BuildSetting {
	return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
}

// TestIdentify: the commands of one build from a clean checkout or a
// module version share an identity and files; any other build (a
// modified tree, a test binary) is its executable's size and mtime, in
// files of its own.
func TestIdentify(t *testing.T) {
	const pseudo = "v0.0.0-20261202095132-1635120ed05b"
	exe := fakeStat{size: 100, mtime: time.Unix(5, 6)}
	clean := vcs("1635120ed05b4a92388d40419136a27ad886325c", "false")
	grep := identify(info("github.com/ccpipe/ccpipe/cmd/cc-grep", pseudo, clean...), true, "cc-grep", exe)
	if grep.scope != "" || grep.id == "" {
		t.Fatalf("clean build: %+v", grep)
	}
	other := fakeStat{size: 200, mtime: time.Unix(7, 8)}
	if sessions := identify(info("github.com/ccpipe/ccpipe/cmd/cc-sessions", pseudo, clean...), true, "cc-sessions", other); sessions != grep {
		t.Errorf("two commands of one clean build: %+v, %+v", grep, sessions)
	}
	next := vcs("2222222222222222222222222222222222222222", "false")
	if b := identify(info("github.com/ccpipe/ccpipe/cmd/cc-grep", "v0.0.0-20261203000000-222222222222", next...), true, "cc-grep", exe); b.id == grep.id || b.scope != "" {
		t.Errorf("another commit, the same identity: %+v", b)
	}
	tagged := identify(info("github.com/ccpipe/ccpipe/cmd/cc-hook", "v1.2.0"), true, "cc-hook", exe)
	if tagged.scope != "" || tagged.id == "" || tagged.id == grep.id {
		t.Errorf("go install module@v1.2.0: %+v", tagged)
	}
	own := build{scope: "cc-grep", id: "100.5000000006"}
	for name, b := range map[string]build{
		"modified tree":       identify(info("github.com/ccpipe/ccpipe/cmd/cc-grep", pseudo+"+dirty", vcs("1635120ed05b4a92388d40419136a27ad886325c", "true")...), true, "cc-grep", exe),
		"modified, no +dirty": identify(info("github.com/ccpipe/ccpipe/cmd/cc-grep", pseudo, vcs("1635120ed05b4a92388d40419136a27ad886325c", "true")...), true, "cc-grep", exe),
		"devel (go test)":     identify(info("github.com/ccpipe/ccpipe/cmd/cc-grep", "(devel)"), true, "cc-grep", exe),
		"no build info":       identify(nil, false, "cc-grep", exe),
	} {
		if b != own {
			t.Errorf("%s: %+v, want %+v", name, b, own)
		}
	}
	if b := identify(nil, false, "cc-grep", other); b.id == own.id {
		t.Errorf("a rebuilt executable kept its identity: %+v", b)
	}
}

// as runs fn as if it were the executable of build b.
func as(t *testing.T, b build, fn func()) {
	t.Helper()
	defer func(f func() build) { self = f }(self)
	self = func() build { return b }
	fn()
}

// TestExecutablesAlternate: two commands using one store in turns (the
// session summaries: cc-sessions, then cc-grep, then cc-sessions) each
// find the other's facts fresh and never rewrite the store, when they
// are of one build; of two builds that cannot be told apart (modified
// trees) each keeps its own file, also never rewritten by the other; a
// rebuilt executable reads none of its old facts.
func TestExecutablesAlternate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		a, b     build
		sameFile bool
	}{
		{"one build", build{id: "b1"}, build{id: "b1"}, true},
		{"builds of their own", build{scope: "cc-sessions", id: "100.1"}, build{scope: "cc-grep", id: "200.2"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "t.jsonl")
			if err := os.WriteFile(p, []byte("line\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			var files []string
			for i, b := range []build{tc.a, tc.b, tc.a, tc.b} {
				as(t, b, func() {
					s := Open(dir, "sessions", "v1")
					e, st := lookup(t, s, p)
					if i < 2 && !tc.sameFile || i == 0 {
						if st != Miss {
							t.Fatalf("run %d, first of its file: %v", i, st)
						}
						put(t, s, p, "facts")
					} else if st != Fresh || string(e.Data) != "facts" {
						t.Fatalf("run %d: %v", i, st)
					}
					before, _ := os.Stat(s.path)
					if err := s.Save(); err != nil {
						t.Fatal(err)
					}
					after, err := os.Stat(s.path)
					if err != nil {
						t.Fatal(err)
					}
					if i >= 2 || tc.sameFile && i == 1 {
						if !os.SameFile(before, after) || !before.ModTime().Equal(after.ModTime()) {
							t.Errorf("run %d rewrote %s", i, s.path)
						}
					}
					files = append(files, s.path)
				})
			}
			if got := files[0] == files[1]; got != tc.sameFile {
				t.Errorf("one file: %v, want %v (%v)", got, tc.sameFile, files)
			}
			// The first executable rebuilt: its facts are another build's.
			rebuilt := tc.a
			rebuilt.id += "x"
			as(t, rebuilt, func() {
				if _, st := lookup(t, Open(dir, "sessions", "v1"), p); st != Miss {
					t.Errorf("a rebuilt executable read an old build's facts: %v", st)
				}
			})
		})
	}
}
