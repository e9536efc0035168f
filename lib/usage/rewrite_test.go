package usage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A transcript rewritten in place at its size, its mtime set back as
// touch -r and cp -p do, is read again: its ledger and the summary are
// keyed by the whole file identity (lib/cache.Stamp: ctime too), never by
// size and mtime alone. Each call's answer is the --no-cache one (issue
// 36: 3,000 tokens kept against 11,000 read).
func TestRewriteSameSizeKeptMtime(t *testing.T) {
	for _, c := range []struct {
		name    string
		own     bool          // the asking transcript is the one rewritten
		recheck time.Duration // 0: every call lists the transcripts
		dropSum bool          // the summary is removed before the call
	}{
		{"own, summary", true, time.Hour, false},
		{"own, ledgers", true, time.Hour, true},
		{"other, ledgers", false, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, tr := session(t)
			other := filepath.Join(filepath.Dir(tr), "22222222-2222-4333-8444-555555555555.jsonl")
			write(t, tr, assistant("m1", "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 100000))
			write(t, other, assistant("m2", "2026-05-02T10:31:00.000Z", "claude-sonnet-5-5", 300000))
			cacheDir := filepath.Join(root, "cache")
			o := RecentOptions{Transcript: tr, CacheDir: cacheDir, Now: at, Recheck: c.recheck, Deadline: time.Now().Add(time.Minute)}
			if r := ReadRecent(o); r.Block.Tokens != 400000 {
				t.Fatalf("first call: %d tokens, want 400000", r.Block.Tokens)
			}
			victim := other
			if c.own {
				victim = tr
			}
			fi, err := os.Stat(victim)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(victim)
			time.Sleep(10 * time.Millisecond) // a ctime of its own
			// 100000 or 300000 tokens become 900000: the same size.
			i := strings.Index(string(b), `"input_tokens":`) + len(`"input_tokens":`)
			rewritten := string(b[:i]) + "9" + string(b[i+1:])
			if len(rewritten) != len(b) {
				t.Fatalf("rewrite is %d bytes, want %d", len(rewritten), len(b))
			}
			if err := os.WriteFile(victim, []byte(rewritten), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(victim, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
			if c.dropSum {
				sums, _ := filepath.Glob(filepath.Join(cacheDir, "*.sum"))
				for _, s := range sums {
					os.Remove(s)
				}
			}
			o.CacheDir = ""
			want := ReadRecent(o)
			o.CacheDir = cacheDir
			got := ReadRecent(o)
			if got.Block.Tokens != want.Block.Tokens || got.Block.USD != want.Block.USD {
				t.Errorf("cached: %d tokens $%v; --no-cache: %d tokens $%v", got.Block.Tokens, got.Block.USD, want.Block.Tokens, want.Block.USD)
			}
			if want.Block.Tokens != 1200000 && want.Block.Tokens != 1000000 {
				t.Errorf("the rewrite changed nothing: %+v", want.Block)
			}
		})
	}
}
