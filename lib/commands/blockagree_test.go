package commands_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/commands/ccextract"
	"github.com/ccpipe/ccpipe/lib/commands/ccstatusline"
)

// TestStatuslineBlockIsExtractsBlock: on the fork corpus (real CLI), the
// status line's block and cc-extract usage --sum block --cost are one
// block: the same cost and the same block_start and block_end, spelled
// the same, so a script can compare the fields (the status line wrote
// 2026-12-01T21:00:00Z where cc-extract wrote 2026-12-01T21:00:00.000Z).
func TestStatuslineBlockIsExtractsBlock(t *testing.T) {
	agreeOnBlock(t, time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC), nil, "2026-12-01T21:00:00.000Z")
}

// After the clock was set back, a record from the future never defines
// the running block: the status line and --sum block agree on which block
// runs (one rule: usage.Active and usage.Current), --sum block marks one
// block active at most, and both say how many records are from the
// future (issue 36: the status line took the future record's block and
// --sum block marked two active).
func TestStatuslineBlockIsExtractsBlockFuture(t *testing.T) {
	now := time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name   string
		now    time.Time
		future []string
		want   string // the running block's start, "" for none
	}{
		// Two days ahead: a block of its own after the running one.
		{"days ahead", now, []string{"2026-12-03T10:00:00.000Z"}, "2026-12-01T21:00:00.000Z"},
		// Two of them, one within the running block's hours.
		{"two", now, []string{"2026-12-01T22:30:00.000Z", "2026-12-03T10:00:00.000Z"}, "2026-12-01T21:00:00.000Z"},
		// The real block is over; a future record's block starts before
		// now: it is not running, its only record being from the future.
		{"only the future runs", time.Date(2026, 12, 2, 4, 10, 0, 0, time.UTC), []string{"2026-12-02T04:30:00.000Z"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) { agreeOnBlock(t, c.now, c.future, c.want) })
	}
}

// agreeOnBlock copies the fork corpus, appends to one transcript an
// assistant record at each of future (after now), and checks that the
// status line's block is --sum block's active one, starting at want.
func agreeOnBlock(t *testing.T, now time.Time, future []string, want string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "claude")
	src, _ := filepath.Abs("../../testdata/corpus-fork/claude")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		to := filepath.Join(root, p[len(src):])
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err == nil {
			err = os.WriteFile(to, b, 0o644)
		}
		if err == nil { // changed within the status line's window (this month)
			err = os.Chtimes(to, now.Add(-time.Hour), now.Add(-time.Hour))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(root, "projects", "-home-dev-projects-forks", "f0a1f003-0000-4000-8000-000000000003.jsonl")
	if len(future) > 0 {
		b, err := os.ReadFile(tr)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		last := lines[len(lines)-1]
		for _, l := range lines {
			if strings.Contains(l, `"type":"assistant"`) {
				last = l
			}
		}
		for i, ts := range future {
			l := strings.NewReplacer("msg_fake_t005", fmt.Sprintf("msg_future_%d", i), "req_fake_t005", fmt.Sprintf("req_future_%d", i),
				"9d26f257-97ff-4e6a-82d7-dee3930bc5f5", fmt.Sprintf("9d26f257-97ff-4e6a-82d7-%012d", i),
				"2026-12-01T21:02:13.838Z", ts).Replace(last)
			if l == last || !strings.Contains(l, ts) {
				t.Fatalf("the corpus changed: no record to date %s", ts)
			}
			b = append(b, l+"\n"...)
		}
		if err := os.WriteFile(tr, b, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(tr, now.Add(-time.Hour), now.Add(-time.Hour))
	}

	sys := corpusSystem(t, 0, "CLAUDE_CONFIG_DIR", root)
	sys.Now = func() time.Time { return now }
	code, out, errs := runCmd(t, ccextract.RunWith, sys, "", "usage", "--sum", "block", "--cost", "--subagents",
		"--jq", "{block_start, block_end, cost_usd, burn_rate, projection, active}", root+"/projects")
	if code != 0 {
		t.Fatalf("cc-extract: exit %d: %s", code, errs)
	}
	var extRaw map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var raw map[string]any
		if err := json.Unmarshal([]byte(l), &raw); err != nil {
			t.Fatalf("cc-extract: %q: %v", out, err)
		}
		if raw["active"] == true {
			if extRaw != nil {
				t.Errorf("cc-extract: two blocks active:\n%v\n%v", extRaw, raw)
			}
			extRaw = raw
		}
	}
	futureNote := fmt.Sprintf("%d messages from the future", len(future))
	if len(future) == 1 {
		futureNote = "1 message from the future"
	}
	if len(future) > 0 && !strings.Contains(errs, futureNote) {
		t.Errorf("cc-extract's stderr %q does not say %q", errs, futureNote)
	}

	payload, _ := json.Marshal(map[string]any{"session_id": "f0a1f003-0000-4000-8000-000000000003", "transcript_path": tr,
		"cwd": "/home/dev/projects/forks", "model": map[string]any{"id": "claude-opus-5-5", "display_name": "Opus 5.5"}})
	cacheDir := t.TempDir()
	for _, run := range []string{"cold", "warm"} {
		code, out, errs = runCmd(t, ccstatusline.RunWith, sys, string(payload), "--cache-dir", cacheDir,
			"--jq", "{block_start, block_end, block_cost_usd, forecast}")
		if code != 0 {
			t.Fatalf("cc-statusline, %s: exit %d: %s", run, code, errs)
		}
		if len(future) > 0 && !strings.Contains(errs, futureNote) {
			t.Errorf("cc-statusline's stderr, %s: %q does not say %q", run, errs, futureNote)
		}
		var raw map[string]any
		if err := json.Unmarshal([]byte(out), &raw); err != nil {
			t.Fatalf("cc-statusline: %q: %v", out, err)
		}
		if want == "" {
			if extRaw != nil || raw["block_start"] != nil {
				t.Errorf("%s: a block runs: cc-statusline %v, cc-extract %v", run, raw, extRaw)
			}
			continue
		}
		if extRaw == nil {
			t.Fatalf("cc-extract: no block active: %s", out)
		}
		if extRaw["block_start"] != want || raw["block_start"] != extRaw["block_start"] || raw["block_end"] != extRaw["block_end"] ||
			raw["block_cost_usd"] != extRaw["cost_usd"] {
			t.Errorf("%s: cc-statusline's block %v\ncc-extract's %v\nwant it to start at %s", run, raw, extRaw, want)
		}
		// The forecast: the status line's from its cache, cc-extract's
		// from the records, the same figures.
		fc, _ := raw["forecast"].(map[string]any)
		br, _ := extRaw["burn_rate"].(map[string]any)
		pr, _ := extRaw["projection"].(map[string]any)
		if fc == nil || br == nil || pr == nil {
			t.Fatalf("no forecast to compare: cc-statusline %v, cc-extract %v", raw, extRaw)
		}
		if fc["tokens_per_minute"] != br["tokens_per_minute"] || fc["usd_per_hour"] != br["cost_per_hour"] ||
			fc["projected_usd"] != pr["cost_usd"] || fc["projected_tokens"] != pr["total_tokens"] {
			t.Errorf("%s: cc-statusline's forecast %v\ncc-extract's burn_rate %v, projection %v", run, fc, br, pr)
		}
	}
}
