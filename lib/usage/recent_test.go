package usage

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

func assistant(id, ts, model string, in int) string {
	return fmt.Sprintf(`{"type":"assistant","uuid":"u-%s","timestamp":"%s","sessionId":"s","requestId":"r-%s","requestedModel":"%s","message":{"id":"%s","model":"%s","content":[],"usage":{"input_tokens":%d,"output_tokens":0}}}`+"\n",
		id, ts, id, model, id, model, in)
}

// session makes a config dir with one project dir and returns the path of
// a session's transcript in it (not written yet).
func session(t *testing.T) (root, tr string) {
	root = t.TempDir()
	proj := filepath.Join(root, "projects", "-home-dev-p")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, filepath.Join(proj, "11111111-2222-4333-8444-555555555555.jsonl")
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

var at = time.Date(2026, 5, 2, 12, 46, 0, 0, time.UTC)

// A line longer than a call can read (a huge tool output) is read on
// across calls from where the last one stopped and then left behind,
// never restarted (issue 31 #10: every call restarted it and the block
// stayed partial forever).
func TestLongLineAcrossCalls(t *testing.T) {
	defer func(n int) { deadlineEvery = n }(deadlineEvery)
	deadlineEvery = 2 // one 256 KB read per call
	root, tr := session(t)
	huge := `{"type":"user","uuid":"big","timestamp":"2026-05-02T10:31:00.000Z","message":{"role":"user","content":"` + strings.Repeat("x", 3<<20) + `"}}` + "\n"
	write(t, tr, assistant("m1", "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 1000000)+huge+
		assistant("m2", "2026-05-02T10:32:00.000Z", "claude-sonnet-5-5", 500000))
	var r Recent
	for i := 0; i < 40; i++ {
		r = ReadRecent(RecentOptions{Transcript: tr, CacheDir: filepath.Join(root, "cache"), Now: at, Deadline: time.Now()})
		if r.Block.USD == 3 && !r.Partial {
			return
		}
	}
	t.Errorf("after 40 calls the block is %+v, partial %v, want $3.00 (both messages, not partial)", r.Block, r.Partial)
}

// The huge line of an assistant record is never skipped for time.
func TestLongAssistantLineNotSkipped(t *testing.T) {
	defer func(n int) { deadlineEvery = n }(deadlineEvery)
	deadlineEvery = 2
	root, tr := session(t)
	big := strings.Replace(assistant("m1", "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 1000000), `"content":[]`, `"content":[{"type":"text","text":"`+strings.Repeat("y", 1<<20)+`"}]`, 1)
	write(t, tr, big)
	// A first call out of time inside it, then one with time.
	o := RecentOptions{Transcript: tr, CacheDir: filepath.Join(root, "cache"), Now: at, Deadline: time.Now()}
	ReadRecent(o)
	o.Deadline = time.Now().Add(10 * time.Second)
	if r := ReadRecent(o); r.Block.USD != 2 || r.Partial {
		t.Errorf("%+v: the assistant line was skipped", r)
	}
}

// A response whose records are still being written when a call reads the
// transcript is read on by the next call as one message: the record with
// the most tokens counts (pricing.Replaces), not the partial first one.
func TestOpenMessageAcrossCalls(t *testing.T) {
	root, tr := session(t)
	first := assistant("m1", "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 250000)
	write(t, tr, first)
	o := RecentOptions{Transcript: tr, CacheDir: filepath.Join(root, "cache"), Now: at, Deadline: time.Now().Add(time.Minute)}
	if r := ReadRecent(o); r.Block.USD != 0.5 {
		t.Fatalf("first record: %+v", r.Block)
	}
	// The same response's next block, with its final count; then another.
	write(t, tr, first+strings.Replace(assistant("m1", "2026-05-02T10:30:01.000Z", "claude-sonnet-5-5", 500000), "u-m1", "u-m1b", 1))
	if r := ReadRecent(o); r.Block.USD != 1 {
		t.Errorf("the response read on: %+v, want $1.00 (one message, its larger count)", r.Block)
	}
	o.CacheDir = ""
	if r := ReadRecent(o); r.Block.USD != 1 {
		t.Errorf("a full read: %+v, want $1.00", r.Block)
	}
}

// TestRecentCachedIsFullRead keeps ReadRecent's fast paths (the summary,
// the ledgers read on from their offsets) equal to a full read with no
// cache, on both real-CLI corpora: cold, warm from the summary, and warm
// from the ledgers (summary gone), for every transcript as the asking one.
func TestRecentCachedIsFullRead(t *testing.T) {
	// An hour after each corpus was made: its block is running.
	for corpus, now := range map[string]time.Time{
		"corpus":      time.Date(2026, 11, 30, 11, 47, 0, 0, time.UTC),
		"corpus-fork": time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC),
	} {
		t.Run(corpus, func(t *testing.T) {
			root := copyCorpus(t, filepath.Join("..", "..", "testdata", corpus, "claude"), now.Add(-time.Hour))
			trs, _ := filepath.Glob(filepath.Join(root, "projects", "*", "*.jsonl"))
			if len(trs) == 0 {
				t.Fatal("no transcript")
			}
			cacheDir := t.TempDir()
			for _, tr := range trs {
				o := RecentOptions{Transcript: tr, Now: now, Recheck: time.Hour, Deadline: time.Now().Add(time.Hour)}
				want := ReadRecent(o)
				if !want.Block.Active(now) || want.Block.USD <= 0 {
					t.Fatalf("%s: no running block with a cost: %+v", tr, want.Block)
				}
				o.CacheDir = cacheDir
				for _, step := range []string{"cold or ledgers", "summary", "ledgers"} {
					if step == "ledgers" {
						sums, _ := filepath.Glob(filepath.Join(cacheDir, "*.sum"))
						for _, s := range sums {
							os.Remove(s)
						}
					}
					if got := ReadRecent(o); fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("%s, %s:\ncached %+v\nfull   %+v", filepath.Base(tr), step, got, want)
					}
				}
			}
		})
	}
}

// copyCorpus copies a config dir into a temp dir, every file's and dir's
// mtime set to mtime (ReadRecent reads the transcripts changed in the
// month, SpendWindow).
func copyCorpus(t *testing.T, src string, mtime time.Time) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "claude")
	golden.CopyTree(t, src, root)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			err = os.Chtimes(p, mtime, mtime)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// ExcludeSubagents leaves the subagents' calls out; calls of either kind
// on one cache dir do not mix their files, and each equals a full read.
func TestRecentExcludeSubagents(t *testing.T) {
	root, tr := session(t)
	write(t, tr, assistant("m1", "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 500000))
	sub := filepath.Join(strings.TrimSuffix(tr, ".jsonl"), "subagents")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(sub, "agent-a1.jsonl"), assistant("m2", "2026-05-02T10:31:00.000Z", "claude-sonnet-5-5", 250000))
	cacheDir := filepath.Join(root, "cache")
	for i := 0; i < 3; i++ {
		for _, exclude := range []bool{false, true} {
			want := 1.5
			if exclude {
				want = 1
			}
			for _, dir := range []string{cacheDir, ""} {
				o := RecentOptions{Transcript: tr, CacheDir: dir, Now: at, Recheck: time.Hour, Deadline: time.Now().Add(time.Minute), ExcludeSubagents: exclude}
				if r := ReadRecent(o); r.Block.USD != want {
					t.Errorf("call %d, exclude %v, cache %q: $%v, want $%v", i, exclude, dir, r.Block.USD, want)
				}
			}
		}
	}
	// The session's transcript grows: a call reads its tail and takes the
	// other ledgers as they are, none of the subagents' when excluded.
	f, err := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(assistant("m3", "2026-05-02T10:32:00.000Z", "claude-sonnet-5-5", 250000))
	f.Close()
	o := RecentOptions{Transcript: tr, CacheDir: cacheDir, Now: at, Recheck: time.Hour, Deadline: time.Now().Add(time.Minute), ExcludeSubagents: true}
	if r := ReadRecent(o); r.Block.USD != 1.5 {
		t.Errorf("grown, excluded: $%v, want $1.50", r.Block.USD)
	}
	o.ExcludeSubagents = false
	if r := ReadRecent(o); r.Block.USD != 2 {
		t.Errorf("grown, included: $%v, want $2.00", r.Block.USD)
	}
}
