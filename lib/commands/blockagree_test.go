package commands_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
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
	now := time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)
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

	sys := corpusSystem(t, 0, "CLAUDE_CONFIG_DIR", root)
	sys.Now = func() time.Time { return now }
	code, out, errs := runCmd(t, ccextract.RunWith, sys, "", "usage", "--sum", "block", "--cost", "--subagents", "--jq", "{block_start, block_end, cost_usd, burn_rate, projection}", root+"/projects")
	if code != 0 {
		t.Fatalf("cc-extract: exit %d: %s", code, errs)
	}
	var ext struct {
		Start, End string
		Cost       float64 `json:"cost_usd"`
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("cc-extract: %q: %v", out, err)
	}
	ext.Start, ext.End, ext.Cost = raw["block_start"].(string), raw["block_end"].(string), raw["cost_usd"].(float64)
	extRaw := raw

	payload, _ := json.Marshal(map[string]any{"session_id": "f0a1f003-0000-4000-8000-000000000003", "transcript_path": tr,
		"cwd": "/home/dev/projects/forks", "model": map[string]any{"id": "claude-opus-5-5", "display_name": "Opus 5.5"}})
	code, out, errs = runCmd(t, ccstatusline.RunWith, sys, string(payload), "--cache-dir", t.TempDir(),
		"--jq", "{block_start, block_end, block_cost_usd, forecast}")
	if code != 0 {
		t.Fatalf("cc-statusline: exit %d: %s", code, errs)
	}
	raw = nil
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("cc-statusline: %q: %v", out, err)
	}
	if raw["block_start"] != ext.Start || raw["block_end"] != ext.End || raw["block_cost_usd"] != ext.Cost {
		t.Errorf("cc-statusline's block %v\ncc-extract's %+v", raw, ext)
	}
	// The forecast: the status line's from its cache, cc-extract's from
	// the records, the same figures.
	fc, _ := raw["forecast"].(map[string]any)
	br, _ := extRaw["burn_rate"].(map[string]any)
	pr, _ := extRaw["projection"].(map[string]any)
	if fc == nil || br == nil || pr == nil {
		t.Fatalf("no forecast to compare: cc-statusline %v, cc-extract %v", raw, extRaw)
	}
	if fc["tokens_per_minute"] != br["tokens_per_minute"] || fc["usd_per_hour"] != br["cost_per_hour"] ||
		fc["projected_usd"] != pr["cost_usd"] || fc["projected_tokens"] != pr["total_tokens"] {
		t.Errorf("cc-statusline's forecast %v\ncc-extract's burn_rate %v, projection %v", fc, br, pr)
	}
}
