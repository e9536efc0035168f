package contract

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/ccrender"
	"github.com/ccpipe/ccpipe/lib/commands/ccstatusline"
	"github.com/ccpipe/ccpipe/lib/numfmt"
	"github.com/ccpipe/ccpipe/lib/render"
)

// Issue 23 item 1: cc-extract, cc-render and cc-statusline bill by one
// rule (lib/pricing's bill.go). checkBilling runs the three commands on
// every session and every 5-hour block of a config dir written by the real
// CLI and wants the same totals, to the bit:
//   - per session, cc-extract usage --cost --sum session and cc-render's
//     page (its Meta, and the cost its summary line prints), subagents
//     included by default in both (issue 35);
//   - per block, cc-extract usage --cost --sum block and
//     cc-statusline's block_cost_usd, run at the block's last message on
//     the transcripts as they were then (each cut after that time);
//   - the sessions add up to the blocks and to every other --sum (day,
//     week, month, model, project, and pairs of them) and to the messages
//     of usage --cost: the same messages, the same cost to the cent (the
//     float sums run in another order); --subagents, the default, changes
//     nothing, and --no-subagents counts fewer messages exactly when a
//     session has subagents.
//
// It returns cc-extract's session rows by session id.
func checkBilling(t *testing.T, configDir string) map[string]map[string]any {
	t.Helper()
	mains, err := filepath.Glob(filepath.Join(configDir, "projects", "*", "*.jsonl"))
	if err != nil || len(mains) == 0 {
		t.Fatalf("no transcripts under %s (%v)", configDir, err)
	}
	sort.Strings(mains)
	sessions := map[string]map[string]any{}
	var sumUSD float64
	var sumMsgs float64
	for _, row := range ccExtract(t, append([]string{"usage", "--cost", "--sum", "session"}, mains...)...) {
		sessions[row["session_id"].(string)] = row
		sumUSD += row["cost_usd"].(float64)
		sumMsgs += row["messages"].(float64)
	}

	// Sessions: cc-render's page, each main transcript with its subagents.
	for _, path := range mains {
		id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		row := sessions[id]
		var metas []render.Meta
		d, err := render.NewDoc(io.Discard, render.Options{Format: "md", Done: func(m render.Meta) { metas = append(metas, m) }})
		if err != nil {
			t.Fatal(err)
		}
		agents, _ := render.AgentsOf(path)
		if err := d.Session(context.Background(), render.Session{ID: id, Path: path, Agents: agents}); err != nil {
			t.Fatalf("render %s: %v", path, err)
		}
		d.Close()
		m := metas[0].Tokens
		if row == nil {
			if m.Messages != 0 {
				t.Errorf("session %s: cc-extract lists no row, cc-render counts %d messages", id, m.Messages)
			}
			continue
		}
		want := row["cost_usd"].(float64)
		if float64(m.Messages) != row["messages"].(float64) || m.USD != want ||
			float64(m.Input+m.Output+m.CacheRead+m.CacheCreation) != row["total_tokens"].(float64) {
			t.Errorf("session %s: cc-render %d messages %d tokens $%v (%b), cc-extract %v messages %v tokens $%v (%b)",
				id, m.Messages, m.Input+m.Output+m.CacheRead+m.CacheCreation, m.USD, math.Float64bits(m.USD),
				row["messages"], row["total_tokens"], want, math.Float64bits(want))
		}
		// The command prints that cost on the page's summary line.
		var out, errb bytes.Buffer
		if code := ccrender.Run([]string{"md", path}, nil, &out, &errb); code != 0 {
			t.Fatalf("cc-render %s: exit %d: %s", path, code, errb.String())
		}
		if m.Messages > 0 && !strings.Contains(out.String(), " · "+numfmt.Dollars(want)+" · ") {
			t.Errorf("session %s: cc-render's page does not say %s", id, numfmt.Dollars(want))
		}
	}

	// Blocks: cc-statusline at each block's last message.
	checkSums(t, mains, sumMsgs, sumUSD)
	blocks := ccExtract(t, append([]string{"usage", "--cost", "--sum", "block"}, mains...)...)
	if len(blocks) == 0 && sumMsgs > 0 {
		t.Fatal("cc-extract --sum block: no block")
	}
	var blockUSD, blockMsgs float64
	for _, b := range blocks {
		want := b["cost_usd"].(float64)
		blockUSD += want
		blockMsgs += b["messages"].(float64)
		end, err := time.Parse(time.RFC3339Nano, b["actual_end"].(string))
		if err != nil {
			t.Fatal(err)
		}
		got := statuslineBlock(t, configDir, end)
		if got != want {
			t.Errorf("block %s: cc-statusline $%v (%b), cc-extract $%v (%b)", b["block_start"], got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
	if blockMsgs != sumMsgs || math.Abs(blockUSD-sumUSD) >= 0.005 {
		t.Errorf("blocks: %v messages $%v; sessions: %v messages $%v", blockMsgs, blockUSD, sumMsgs, sumUSD)
	}
	return sessions
}

// checkSums wants every --sum of cc-extract usage --cost over mains, and
// its per-message output, to total msgs messages and usd dollars (to the
// cent: the float sums run in other orders); with --subagents the same
// rows as without, and with --no-subagents fewer messages exactly when a
// session has subagents.
func checkSums(t *testing.T, mains []string, msgs, usd float64) {
	t.Helper()
	for _, sum := range []string{"", "session", "model", "day", "week", "month", "project", "day,model", "project,day", "session,model", "block"} {
		args := []string{"usage", "--cost"}
		if sum != "" {
			args = append(args, "--sum", sum)
		}
		var gotUSD, gotMsgs float64
		rows := ccExtract(t, append(args, mains...)...)
		for _, r := range rows {
			if c, ok := r["cost_usd"].(float64); ok {
				gotUSD += c
			}
			if sum == "" {
				gotMsgs++
			} else {
				gotMsgs += r["messages"].(float64)
			}
		}
		if gotMsgs != msgs || math.Abs(gotUSD-usd) >= 0.005 {
			t.Errorf("--sum %q: %v messages $%v; --sum session: %v messages $%v", sum, gotMsgs, gotUSD, msgs, usd)
		}
		if with := ccExtract(t, append(append(args, "--subagents"), mains...)...); !reflect.DeepEqual(withoutClock(with), withoutClock(rows)) {
			t.Errorf("--sum %q: --subagents is not the default", sum)
		}
	}
	subs, _ := filepath.Glob(filepath.Join(filepath.Dir(mains[0]), "..", "*", "*", "subagents", "*.jsonl"))
	var without float64
	for _, r := range ccExtract(t, append([]string{"usage", "--cost", "--sum", "session", "--no-subagents"}, mains...)...) {
		without += r["messages"].(float64)
	}
	if (len(subs) > 0) != (without < msgs) || without > msgs {
		t.Errorf("--no-subagents: %v messages, with subagents %v (%d subagent transcripts)", without, msgs, len(subs))
	}
}

// withoutClock drops what an active block's row computes from the clock
// (burn rate, projection): two runs a moment apart differ there.
func withoutClock(rows []map[string]any) []map[string]any {
	for _, r := range rows {
		delete(r, "burn_rate")
		delete(r, "projection")
	}
	return rows
}

// statuslineBlock is cc-statusline's block_cost_usd at end, over a copy of
// the config dir's transcripts cut after end (as they were then).
func statuslineBlock(t *testing.T, configDir string, end time.Time) float64 {
	t.Helper()
	root := t.TempDir()
	var payloadPath string
	err := filepath.WalkDir(filepath.Join(configDir, "projects"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		rel, _ := filepath.Rel(configDir, p)
		dst := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, linesUntil(t, p, end), 0o644); err != nil {
			return err
		}
		if payloadPath == "" && !strings.Contains(rel, "subagents") {
			payloadPath = dst
		}
		return os.Chtimes(dst, end, end)
	})
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(map[string]any{"session_id": "x", "transcript_path": payloadPath,
		"model": map[string]any{"id": "claude-opus-5-5", "display_name": "Opus 5.5"}, "cost": map[string]any{"total_cost_usd": 0}})
	var out, errb bytes.Buffer
	args := []string{"--cache-dir", filepath.Join(root, "cache"), "--budget", "1h", "--jq", ".block_cost_usd"}
	sys := cli.OS()
	sys.Now = func() time.Time { return end.Add(time.Second) } // the clock through the seam, as a status line refresh just after the last call
	if code := ccstatusline.RunWith(sys, args, bytes.NewReader(payload), &out, &errb); code != 0 {
		t.Fatalf("cc-statusline: exit %d: %s", code, errb.String())
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(out.String()), 64)
	if err != nil {
		t.Fatalf("cc-statusline block_cost_usd %q: %v", out.String(), err)
	}
	return v
}

// linesUntil is the transcript at path up to its first record written
// after end.
func linesUntil(t *testing.T, path string, end time.Time) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var keep bytes.Buffer
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r struct {
			Timestamp string `json:"timestamp"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Timestamp != "" {
			if ts, err := time.Parse(time.RFC3339Nano, r.Timestamp); err == nil && ts.After(end) {
				break
			}
		}
		keep.Write(sc.Bytes())
		keep.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return keep.Bytes()
}

// TestBillingCorpus runs checkBilling on the real-CLI corpora, no CLI
// needed: testdata/corpus (tools, subagents, resume, compaction, retried
// and failed calls, hooks) and testdata/corpus-fork (forks, a fork of a
// fork, a resume after the fork, a fork whose only call failed; made by
// TestBillingFork).
func TestBillingCorpus(t *testing.T) {
	for _, dir := range []string{"../../../testdata/corpus/claude", "../../../testdata/corpus-fork/claude"} {
		t.Run(filepath.Base(filepath.Dir(dir)), func(t *testing.T) {
			rows := checkBilling(t, dir)
			if len(rows) == 0 {
				t.Fatal("no session")
			}
		})
	}
}
