package usage

import "testing"

// TestCachePathPerExecutable: each executable keeps its own set of cache
// files for a projects dir. The store's version carries the executable's
// identity (cache.Build), so cc-statusline and cc-hook sharing one set
// would find each other's stale and read every transcript again, by turns.
func TestCachePathPerExecutable(t *testing.T) {
	defer func(e string) { executable = e }(executable)
	dir, projects := t.TempDir(), "/home/dev/.claude/projects"
	executable = "cc-statusline"
	sl := cachePath(dir, projects)
	executable = "cc-hook"
	hook := cachePath(dir, projects)
	if sl == hook {
		t.Errorf("cc-statusline and cc-hook share %s", sl)
	}
	executable = "cc-statusline"
	if again := cachePath(dir, projects); again != sl {
		t.Errorf("one executable, two paths: %s, %s", sl, again)
	}
	if other := cachePath(dir, "/home/dev/.claude-work/projects"); other == sl {
		t.Errorf("two projects dirs share %s", sl)
	}
}
