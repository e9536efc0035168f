package ccextract

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// TestCacheStatsAddUp (issue 41 item 12): --cache-stats counts every file
// (and subagents dir) a run looks up once, so a cold run's "read whole"
// is a warm run's "unchanged", both the store's entries; and its byte
// count is the store file's size, as ls -l shows it. The corpus has a
// compressed transcript and subagent dirs, which are cached without a
// Lookup after Unchanged misses (the counts once left them out).
func TestCacheStatsAddUp(t *testing.T) {
	work := t.TempDir()
	root := filepath.Join(work, "corpus")
	golden.CopyTree(t, "../../../testdata/corpus/claude/projects", root)
	gzipFile(t, filepath.Join(root, "-home-dev-projects-gamma/c0a1f005-0000-4000-8000-000000000005.jsonl"))
	env := map[string]string{"XDG_CACHE_HOME": filepath.Join(work, "cache")}
	sys := cli.System{Getenv: func(k string) string { return env[k] }, Now: func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }}
	re := regexp.MustCompile(`cache: (\S+): (\d+) bytes, (\d+) entries; this run looked up (\d+): (\d+) unchanged, (\d+) grown, (\d+) read whole; (\d+) dropped`)
	stats := func(stage string) (path string, n []int) {
		_, errs, code := run(t, sys, "usage", "--cache-stats", "--subagents", root)
		m := re.FindStringSubmatch(errs)
		if code != 0 || m == nil {
			t.Fatalf("%s: exit %d, %q", stage, code, errs)
		}
		for _, s := range m[2:] {
			v, _ := strconv.Atoi(s)
			n = append(n, v)
		}
		fi, err := os.Stat(m[1])
		if err != nil || fi.Size() != int64(n[0]) {
			t.Errorf("%s: %d bytes reported, the store file has %v (%v)", stage, n[0], fi.Size(), err)
		}
		if n[2] != n[3]+n[4]+n[5] {
			t.Errorf("%s: looked up %d, but %d + %d + %d", stage, n[2], n[3], n[4], n[5])
		}
		return m[1], n
	}
	_, cold := stats("cold")
	_, warm := stats("warm")
	// bytes, entries, looked up, unchanged, grown, read whole, dropped
	if cold[2] < 10 || cold[5] != cold[2] || cold[1] != cold[2] || cold[3]+cold[4] != 0 {
		t.Errorf("cold: every entry read whole once: %v", cold)
	}
	if warm[3] != cold[5] || warm[2] != cold[2] || warm[5] != 0 || warm[1] != cold[1] {
		t.Errorf("warm: what the cold run read is unchanged: cold %v, warm %v", cold, warm)
	}
}
