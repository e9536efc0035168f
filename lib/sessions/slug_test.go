package sessions

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
)

func TestSlug(t *testing.T) {
	// Expected values come from the 2.1.328 bundle's own functions run in
	// node (runtime.md 3.1 and the bundle's `rL`).
	tests := []struct{ path, want string }{
		{"/home/lab/proj.dots", "-home-lab-proj-dots"},
		{"/home/lab/proj space", "-home-lab-proj-space"},
		{"/home/lab/projü", "-home-lab-proj-"},
		{"/home/lab/proj😀x", "-home-lab-proj--x"},
		{"/home/dev/work/beta/.claude/worktrees/wt-demo", "-home-dev-work-beta--claude-worktrees-wt-demo"},
		{"/home/dev/" + strings.Repeat("deep-nested-folder/", 12) + "project",
			"-home-dev-deep-nested-folder-deep-nested-folder-deep-nested-folder-deep-nested-folder-deep-nested-folder-deep-nested-folder-deep-nested-folder-deep-nested-folder-deep-nested-folder-deep-nested-folder--dc3w4i"},
		{"/a/" + strings.Repeat("ü", 210), "-a-" + strings.Repeat("-", 197) + "-vgsty5"},
		{"/x/" + strings.Repeat("ab", 150), "-x-" + strings.Repeat("ab", 98) + "a-s8vd50"},
	}
	for _, tt := range tests {
		if got := Slug(tt.path); got != tt.want {
			t.Errorf("Slug(%q)\n got %q\nwant %q", tt.path, got, tt.want)
		}
	}
}

func FuzzSlug(f *testing.F) {
	f.Add("/home/lab/proj😀x")
	f.Add("/" + strings.Repeat("é", 300))
	f.Fuzz(func(t *testing.T, p string) {
		s := Slug(p)
		units := len(utf16.Encode([]rune(p)))
		if units <= MaxSlug && len(s) != units {
			t.Fatalf("short slug has %d chars for %d units", len(s), units)
		}
		if units > MaxSlug && !isHashedSlug(s) {
			t.Fatalf("long path gave %q, not a hashed slug", s)
		}
		for i := 0; i < len(s); i++ {
			if !isAlnum(s[i]) && s[i] != '-' {
				t.Fatalf("slug %q has %q", s, s[i])
			}
		}
	})
}

func TestProjectDirsFor(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	real := filepath.Join(root, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if got, want := ProjectDirsFor(link), []string{Slug(real), Slug(link)}; !reflect.DeepEqual(got, want) {
		t.Errorf("symlink: %v, want %v", got, want)
	}
	if got, want := ProjectDirsFor(real), []string{Slug(real)}; !reflect.DeepEqual(got, want) {
		t.Errorf("real: %v, want %v", got, want)
	}
}

func TestWithinMatcher(t *testing.T) {
	long := "/home/dev/" + strings.Repeat("deep-nested-folder/", 12) + "project"
	tests := []struct {
		dir  string
		name string
		want bool
	}{
		{"/home/dev/app", "-home-dev-app", true},
		{"/home/dev/app", "-home-dev-app-sub", true},
		{"/home/dev/app", "-home-dev-application", false},
		{"/home/dev/app", "-home-dev-lib", false},
		{"/home/dev/app/", "-home-dev-app", true},
		{long, Slug(long), true},
		{long, Slug(long + "/more/below"), true},
		{"/home/dev/deep-nested-folder", Slug(long), true},
		{"/home/dev/other", Slug(long), false},
		{strings.TrimSuffix(long, "/project"), Slug(long), true}, // a dir over 200 chars above the session
		{"/home/dev/app", "my-proj_1", false},
	}
	for _, tt := range tests {
		m := newWithinMatcher([]string{tt.dir})
		if got := m.dirName(tt.name); got != tt.want {
			t.Errorf("dirName(%q within %q) = %v, want %v", tt.name, tt.dir, got, tt.want)
		}
	}
	m := newWithinMatcher([]string{"/home/dev/app"})
	for cwd, want := range map[string]bool{
		"/home/dev/app": true, "/home/dev/app/x/y": true, "/home/dev/application": false, "": false, "/home/dev": false,
	} {
		if got := m.cwd(cwd); got != want {
			t.Errorf("cwd(%q) = %v, want %v", cwd, got, want)
		}
	}
}

// A dir given through a symlink matches sessions recorded under its
// resolved path (Claude Code records the realpath) and under the link.
func TestWithinSymlink(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	real := filepath.Join(root, "real")
	link := filepath.Join(root, "link")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	f := CwdFilter([]string{link})
	if !f(real+"/sub") || !f(link) || f(root) {
		t.Error("symlinked dir does not match both spellings")
	}
	if CwdFilter(nil) != nil {
		t.Error("no dirs must mean no filter")
	}
}
