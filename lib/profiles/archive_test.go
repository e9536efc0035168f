package profiles

import (
	"path/filepath"
	"testing"
)

// CCPIPE_ARCHIVE dirs come last, as archive profiles whose projects dir
// is the archive itself; an empty entry is skipped, a dir given twice is
// listed once, and a name that clashes gets the stable cfg- name.
func TestDiscoverArchives(t *testing.T) {
	home := t.TempDir()
	a, b := filepath.Join(home, "arch"), filepath.Join(home, "x", "arch")
	tree(t, home, ".claude/projects/", "arch/", "x/arch/")
	env := NewEnv(home, func(k string) string {
		if k == ArchiveEnv {
			return a + string(filepath.ListSeparator) + string(filepath.ListSeparator) + b + string(filepath.ListSeparator) + a
		}
		return ""
	})
	list, warnings := Discover(env)
	if len(warnings) > 0 {
		t.Fatal(warnings)
	}
	if len(list) != 3 {
		t.Fatalf("got %d profiles: %+v", len(list), list)
	}
	for i, want := range []struct{ name, dir string }{{"archive-arch", a}, {ClashName(Resolve(b)), b}} {
		p := list[i+1]
		if p.Name != want.name || p.Source != SourceArchive || !IsArchive(p) || p.ProjectsDir != Resolve(want.dir) || !p.Exists {
			t.Errorf("profile %d: %+v, want name %s projects_dir %s", i+1, p, want.name, want.dir)
		}
	}
	if IsArchive(list[0]) {
		t.Error("the default profile is no archive")
	}
	// A record read back keeps the archive's projects dir.
	p, err := FromRecord([]byte(`{"name":"archive-arch","source":"archive","config_dir":"` + a + `"}`))
	if err != nil || p.ProjectsDir != a {
		t.Errorf("FromRecord: %+v, %v", p, err)
	}
}
