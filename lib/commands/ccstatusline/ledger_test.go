package ccstatusline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/internal/fulldisk"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
	"github.com/ccpipe/ccpipe/lib/ratelimit"
)

// limits is a payload's rate_limits as Claude Code builds them for a
// subscription account (resets_at in Unix seconds). Claude Code 2.1.328
// sends none with an API key, so the contract suite cannot capture them:
// these are the captured shapes, set on the real payload.
func limits(five, seven float64, fiveReset, sevenReset string) func(map[string]any) {
	unix := func(s string) int64 {
		t, _ := time.Parse(time.RFC3339, s)
		return t.Unix()
	}
	return func(p map[string]any) {
		p["rate_limits"] = map[string]any{
			"five_hour": map[string]any{"used_percentage": five, "resets_at": unix(fiveReset)},
			"seven_day": map[string]any{"used_percentage": seven, "resets_at": unix(sevenReset)},
		}
	}
}

// TestLedgerGolden: samples → ledger → windows. The five-hour window that
// announced 15:00 shows a reset at 12:00 (early), the seven-day one does
// not reset; a repeated sample is kept once; the spend per window is the
// month spend's growth over its samples ($2 at 10:30, $3, $4, $6); a
// malformed ledger line is skipped and counted.
func TestLedgerGolden(t *testing.T) {
	root, tr, other, write := twoSessions(t)
	cache := filepath.Join(root, "cache")
	week := "2026-05-07T00:00:00Z"
	steps := []struct {
		now, transcript, line string
		edit                  func(map[string]any)
	}{
		{"2026-05-02T10:30:00Z", tr, assistant("m1", "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 1000000), limits(10, 3, "2026-05-02T15:00:00Z", week)},
		{"2026-05-02T10:35:00Z", "", "", limits(10, 3, "2026-05-02T15:00:00Z", week)},
		{"2026-05-02T11:00:00Z", other, assistant("m2", "2026-05-02T11:00:00.000Z", "claude-sonnet-5-5", 500000), limits(20, 4, "2026-05-02T15:00:00Z", week)},
		{"2026-05-02T12:00:00Z", other, assistant("m3", "2026-05-02T12:00:00.000Z", "claude-sonnet-5-5", 500000), limits(2, 5, "2026-05-02T17:00:00Z", week)},
		{"2026-05-02T12:30:00Z", other, assistant("m4", "2026-05-02T12:30:00.000Z", "claude-sonnet-5-5", 1000000), limits(12, 6, "2026-05-02T17:00:00Z", week)},
	}
	content := map[string]string{}
	for _, s := range steps {
		if s.transcript != "" {
			content[s.transcript] += s.line
			write(s.transcript, content[s.transcript])
		}
		code, out, errs := run(t, realPayload(t, tr, s.edit), "--cache-dir", cache, "--now", s.now, "--budget", "1h", "--recheck", "0s")
		if code != 0 || errs != "" || !strings.Contains(out, "5h ") {
			t.Fatalf("%s: exit %d, %q, %s", s.now, code, out, errs)
		}
	}
	ledger, err := os.ReadFile(filepath.Join(cache, ratelimit.LedgerName))
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(filepath.Join(cache, ratelimit.LedgerName), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{\"time\":\"cut\n")
	f.Close()
	code, nd, errs := run(t, nil, "--cache-dir", cache, "--rate-limits")
	_, table, _ := run(t, nil, "--cache-dir", cache, "--rate-limits", "--format", "table")
	got := "ledger:\n" + string(ledger) + "\n--rate-limits:\n" + golden.Output(code, errs, nd) + "\n--format table:\n" + table
	golden.Check(t, filepath.Join("testdata", "ratelimits.golden"), strings.ReplaceAll(got, root, "$ROOT"))

	var w []ratelimit.Window
	for _, l := range strings.Split(strings.TrimSpace(nd), "\n") {
		var x ratelimit.Window
		if err := json.Unmarshal([]byte(l), &x); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		w = append(w, x)
	}
	if len(w) != 3 || !w[0].Early || w[1].Early || w[2].Early || w[0].ResetAtObserved == nil || *w[0].ResetAtObserved != "2026-05-02T12:00:00.000Z" {
		t.Errorf("windows: %+v", w)
	}
	if bytes.Count(ledger, []byte("\n")) != 4 {
		t.Errorf("the repeated 10:35 sample is kept once: %d lines", bytes.Count(ledger, []byte("\n")))
	}
	if !strings.Contains(errs, "1 malformed lines skipped") {
		t.Errorf("stderr %q", errs)
	}
}

// TestLedgerConcurrent: 20 status lines at once, each with its own
// sample, leave 20 whole lines in the ledger, each sample there.
func TestLedgerConcurrent(t *testing.T) {
	cache := t.TempDir()
	var wg sync.WaitGroup
	codes := make([]int, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := fmt.Sprintf(`{"model":{"display_name":"Opus"},"rate_limits":{"five_hour":{"used_percentage":%d,"resets_at":1777729560},"seven_day":{"used_percentage":1,"resets_at":1778112000}}}`, i+1)
			var out, errb bytes.Buffer
			sys, args := testSystem(t, []string{"--cache-dir", cache})
			codes[i] = RunWith(sys, args, strings.NewReader(p), &out, &errb)
			if out.String() != fmt.Sprintf("Opus | 5h %d%%\n", i+1) || errb.Len() > 0 {
				t.Errorf("call %d: %q %q", i, out.String(), errb.String())
			}
		}()
	}
	wg.Wait()
	b, err := os.ReadFile(filepath.Join(cache, ratelimit.LedgerName))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[float64]int{}
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var s ratelimit.Sample
		if err := json.Unmarshal([]byte(l), &s); err != nil || s.FiveHour == nil {
			t.Fatalf("torn line %q: %v", l, err)
		}
		seen[s.FiveHour.UsedPercentage]++
	}
	for i := range 20 {
		if seen[float64(i+1)] < 1 || codes[i] != 0 {
			t.Errorf("sample %d kept %d times, exit %d", i+1, seen[float64(i+1)], codes[i])
		}
	}
}

// TestLedgerFullDisk: on a full disk the ledger keeps no half line, and
// the status line printed is the same as with a ledger that can grow;
// once space is freed the next sample is a whole line of its own.
func TestLedgerFullDisk(t *testing.T) {
	dir := fulldisk.Mount(t, "16k")
	path := filepath.Join(dir, ratelimit.LedgerName)
	// Fill the ledger's page to 4090 bytes: the next line crosses it.
	pad := `{"time":"2026-05-02T10:00:00.000Z","five_hour":{"used_percentage":1,"resets_at":1777729560},"note":"` +
		strings.Repeat("x", 4090-103) + "\"}\n"
	if len(pad) != 4090 {
		t.Fatalf("pad %d", len(pad))
	}
	os.WriteFile(path, []byte(pad), 0o600)
	fulldisk.Fill(t, dir)
	p := realPayload(t, "", limits(41.6, 7, "2026-05-02T15:00:00Z", "2026-05-07T00:00:00Z"))
	_, want, _ := run(t, p, "--cache-dir", t.TempDir(), "--now", "2026-05-02T12:46:00Z")
	code, out, errs := run(t, p, "--cache-dir", dir, "--now", "2026-05-02T12:46:00Z")
	if code != 0 || out != want || want == "" {
		t.Errorf("full disk: exit %d, %q, want %q", code, out, want)
	}
	if !strings.Contains(errs, "rate-limit ledger") || !strings.Contains(errs, "no space left") {
		t.Errorf("stderr %q, want the ledger's disk-full note", errs)
	}
	if b, _ := os.ReadFile(path); string(b) != pad {
		t.Fatalf("ledger after a short write: %d bytes, ends %q", len(b), b[max(len(b)-40, 0):])
	}
	os.Remove(filepath.Join(dir, ".filler"))
	run(t, p, "--cache-dir", dir, "--now", "2026-05-02T12:47:00Z")
	b, _ := os.ReadFile(path)
	rest := strings.TrimPrefix(string(b), pad)
	var s ratelimit.Sample
	if strings.Count(rest, "\n") != 1 || json.Unmarshal([]byte(rest), &s) != nil || s.FiveHour.UsedPercentage != 41.6 {
		t.Errorf("after space is freed: %q", rest)
	}
}

// TestLedgerSymlink: a link planted at the ledger's path is not followed
// (its target stays as it was), the line is printed, --rate-limits
// refuses it; --no-cache keeps no ledger.
func TestLedgerSymlink(t *testing.T) {
	cache, elsewhere := t.TempDir(), t.TempDir()
	target := filepath.Join(elsewhere, "notes.txt")
	os.WriteFile(target, []byte("mine\n"), 0o600)
	if err := os.Symlink(target, filepath.Join(cache, ratelimit.LedgerName)); err != nil {
		t.Fatal(err)
	}
	p := realPayload(t, "", limits(41.6, 7, "2026-05-02T15:00:00Z", "2026-05-07T00:00:00Z"))
	code, out, errs := run(t, p, "--cache-dir", cache, "--now", "2026-05-02T12:46:00Z")
	if code != 0 || !strings.Contains(out, "5h 42%") || !strings.Contains(errs, "rate-limit ledger") {
		t.Errorf("exit %d, %q, %q", code, out, errs)
	}
	if b, _ := os.ReadFile(target); string(b) != "mine\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	if code, _, errs := run(t, nil, "--cache-dir", cache, "--rate-limits"); code != 1 || !strings.Contains(errs, "not a regular file") {
		t.Errorf("--rate-limits on a link: exit %d, %q", code, errs)
	}
	none := t.TempDir()
	run(t, p, "--cache-dir", none, "--no-cache")
	if _, err := os.Stat(filepath.Join(none, ratelimit.LedgerName)); err == nil {
		t.Error("--no-cache kept a ledger")
	}
}
