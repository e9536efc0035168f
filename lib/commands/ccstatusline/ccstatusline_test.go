package ccstatusline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/cli"
)

// realPayload is the statusLine JSON Claude Code 2.1.328 sent (captured by
// lib/internal/contract's TestStatuslinePayload), pointed at transcript.
func realPayload(t *testing.T, transcript string, edit func(map[string]any)) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/payload-2.1.328.json")
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	p["transcript_path"] = transcript
	if edit != nil {
		edit(p)
	}
	out, _ := json.Marshal(p)
	return out
}

func assistant(id, ts, model string, in int) string {
	return fmt.Sprintf(`{"type":"assistant","uuid":"u-%s","timestamp":"%s","sessionId":"s","requestId":"r-%s","requestedModel":"%s","message":{"id":"%s","model":"%s","content":[],"usage":{"input_tokens":%d,"output_tokens":0}}}`+"\n",
		id, ts, id, model, id, model, in)
}

func run(t *testing.T, stdin []byte, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	sys, args := testSystem(t, args)
	code := RunWith(sys, args, bytes.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// testSystem is the System of a test run, none of it the process's: an
// empty environment, a home and a cache dir of the test's own, UTC, and
// the real clock unless set through the seam by each pair "--now TIME"
// in the test's args (the last wins). The pairs are taken out: the
// command has no such flag.
func testSystem(t testing.TB, args []string) (cli.System, []string) {
	home, cache := t.TempDir(), t.TempDir()
	sys := cli.System{
		Getenv: func(string) string { return "" },
		Home:   home,
		Cache:  func() (string, error) { return cache, nil },
		Now:    time.Now,
		Zone:   time.UTC,
	}
	var rest []string
	for i := 0; i < len(args); i++ {
		if args[i] != "--now" || i+1 == len(args) {
			rest = append(rest, args[i])
			continue
		}
		now, err := time.Parse(time.RFC3339Nano, args[i+1])
		if err != nil {
			t.Fatalf("--now: %v", err)
		}
		sys.Now = func() time.Time { return now }
		i++
	}
	return sys, rest
}

// twoSessions makes a config dir with one project dir for two sessions'
// transcripts (not written yet) and returns write, which writes a file.
func twoSessions(t *testing.T) (root, tr, other string, write func(path, s string)) {
	root = t.TempDir()
	proj := filepath.Join(root, "projects", "-home-dev-p")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	tr = filepath.Join(proj, "11111111-2222-4333-8444-555555555555.jsonl")
	other = filepath.Join(proj, "21111111-2222-4333-8444-555555555555.jsonl")
	write = func(path, s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, tr, other, write
}

func TestStatusLine(t *testing.T) {
	root, tr, other, write := twoSessions(t)
	// Two sessions in the same 5-hour block (10:00-15:00): $2.00 + $1.00
	// at sonnet-5-5's $2/M input.
	write(tr, assistant("m1", "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 1000000))
	write(other, assistant("m2", "2026-05-02T11:00:00.000Z", "claude-sonnet-5-5", 500000))
	cache := filepath.Join(root, "cache")
	args := []string{"--cache-dir", cache, "--now", "2026-05-02T12:46:00Z"}
	code, out, errs := run(t, realPayload(t, tr, nil), args...)
	if code != 0 || out != "Opus 5.5 | $0.03 session | $3.00 block, 2h14m left | ctx 2%\n" {
		t.Fatalf("exit %d, %q, %s", code, out, errs)
	}
	// Grown: only the tail is read, and the new message counts.
	f, _ := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(assistant("m3", "2026-05-02T12:40:00.000Z", "claude-sonnet-5-5", 250000))
	f.Close()
	code, out, _ = run(t, realPayload(t, tr, nil), append(args, "--jq", `[.block_cost_usd, .block_start, .block_minutes_left, .context_percent] | @json`, "-r")...)
	if code != 0 || out != `[3.5,"2026-05-02T10:00:00.000Z",134,2]`+"\n" {
		t.Fatalf("after append: exit %d, %q", code, out)
	}
	// The ledger cached the offset: a corrupted head is not read again.
	data, _ := os.ReadFile(tr)
	copy(data, bytes.Repeat([]byte("x"), 20))
	write(tr, string(data)+assistant("m4", "2026-05-02T12:41:00.000Z", "claude-sonnet-5-5", 0))
	code, out, _ = run(t, realPayload(t, tr, nil), append(args, "--template", `{{usd .block_cost_usd}}`)...)
	if code != 0 || out != "$3.50\n" {
		t.Fatalf("tail read: exit %d, %q", code, out)
	}
}

func TestRateLimitsAndContextFallback(t *testing.T) {
	root := t.TempDir()
	tr := filepath.Join(root, "projects", "p", "11111111-2222-4333-8444-555555555555.jsonl")
	os.MkdirAll(filepath.Dir(tr), 0o755)
	os.WriteFile(tr, []byte(assistant("m1", "2026-05-02T10:30:00.000Z", "claude-opus-4-6[1m]", 250000)), 0o644)
	p := realPayload(t, tr, func(p map[string]any) {
		delete(p, "context_window")
		p["model"] = map[string]any{"id": "claude-opus-4-6[1m]", "display_name": "Opus 4.6 (1M context)"}
		p["rate_limits"] = map[string]any{"five_hour": map[string]any{"used_percentage": 41.6, "resets_at": 1777729560}}
	})
	code, out, errs := run(t, p, "--cache-dir", filepath.Join(root, "c"), "--now", "2026-05-02T12:46:00Z")
	// resets_at 1777729560 is 2026-05-02T13:46:00Z: 60 minutes left.
	if code != 0 || out != "Opus 4.6 (1M context) | $0.03 session | 5h 42%, 1h00m left | ctx 25%\n" {
		t.Fatalf("exit %d, %q, %s", code, out, errs)
	}
}

func TestBadInput(t *testing.T) {
	code, out, errs := run(t, []byte("{not json"), "--cache-dir", t.TempDir())
	if code != 1 || !strings.Contains(out, "unreadable payload") || !strings.HasPrefix(errs, "cc-statusline: payload:") {
		t.Errorf("bad payload: exit %d, %q, %q", code, out, errs)
	}
	code, _, errs = run(t, []byte(`{}`), "--template", "{{.model", "--cache-dir", t.TempDir())
	if code != 2 || !strings.HasPrefix(errs, "cc-statusline: --template:") {
		t.Errorf("bad template: exit %d, %q", code, errs)
	}
	// A payload without a transcript still gives a line.
	code, out, _ = run(t, []byte(`{"model":{"display_name":"M"},"cost":{"total_cost_usd":0.5}}`), "--cache-dir", t.TempDir())
	if code != 0 || out != "M | $0.50 session\n" {
		t.Errorf("no transcript: exit %d, %q", code, out)
	}
}

func TestLog(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "p.ndjson")
	for i := 0; i < 2; i++ {
		if code, _, errs := run(t, []byte("{\n \"model\": {\"id\": \"x\"}\n}\n"), "--log", log, "--cache-dir", dir); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
	}
	b, _ := os.ReadFile(log)
	if string(b) != "{\"model\":{\"id\":\"x\"}}\n{\"model\":{\"id\":\"x\"}}\n" {
		t.Errorf("log %q", b)
	}
}

// TestSummary checks the warm path's cache: an unchanged transcript is
// answered from the summary alone (the ledgers are not read), a new
// transcript in a project dir is seen at once (its dir's mtime changed), a
// message appended to another session only after --recheck.
func TestSummary(t *testing.T) {
	root, tr, other, write := twoSessions(t)
	write(tr, assistant("m1", "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 1000000))
	cache.Settle() // a stamp taken in the file's ctime tick is racy, never Fresh: the summary would not hold
	cacheDir := filepath.Join(root, "cache")
	block := func(extra ...string) string {
		t.Helper()
		args := append([]string{"--cache-dir", cacheDir, "--now", "2026-05-02T12:46:00Z", "--template", "{{usd .block_cost_usd}}"}, extra...)
		code, out, errs := run(t, realPayload(t, tr, nil), args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		return strings.TrimSpace(out)
	}
	if got := block(); got != "$2.00" {
		t.Fatalf("first call: %s", got)
	}
	gobs, _ := filepath.Glob(filepath.Join(cacheDir, "*.ledgers*.cache"))
	if len(gobs) != 1 {
		t.Fatalf("ledger files %v", gobs)
	}
	// The ledgers made unreadable: the summary answers alone.
	write(gobs[0], "garbage")
	if got := block(); got != "$2.00" {
		t.Errorf("from the summary: %s", got)
	}
	// A new session's transcript: the project dir changed.
	write(other, assistant("m2", "2026-05-02T11:00:00.000Z", "claude-sonnet-5-5", 500000))
	cache.Settle()
	if got := block(); got != "$3.00" {
		t.Errorf("after a new transcript: %s", got)
	}
	// Appended to the other session: seen at the next full listing.
	f, err := os.OpenFile(other, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(assistant("m3", "2026-05-02T12:00:00.000Z", "claude-sonnet-5-5", 500000))
	f.Close()
	if got := block(); got != "$3.00" {
		t.Errorf("appended, before --recheck: %s (the summary holds until the next listing)", got)
	}
	if got := block("--recheck", "0s"); got != "$4.00" {
		t.Errorf("appended, with --recheck 0s: %s", got)
	}
	// The asking transcript grew: its tail is read without a listing.
	f, _ = os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(assistant("m4", "2026-05-02T12:10:00.000Z", "claude-sonnet-5-5", 250000))
	f.Close()
	if got := block(); got != "$4.50" {
		t.Errorf("own transcript grown: %s", got)
	}
}

// TestBudget: out of time, the line shows what was read (a + after the
// block cost) and the next calls read on until the block is whole.
func TestBudget(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "projects", "p")
	os.MkdirAll(proj, 0o755)
	tr := filepath.Join(proj, "11111111-2222-4333-8444-555555555555.jsonl")
	other := filepath.Join(proj, "21111111-2222-4333-8444-555555555555.jsonl")
	var b strings.Builder
	for i := 0; i < 500; i++ {
		b.WriteString(assistant(fmt.Sprint("m", i), "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 10000))
	}
	os.WriteFile(tr, []byte(b.String()), 0o644)
	os.WriteFile(other, []byte(assistant("o1", "2026-05-02T11:00:00.000Z", "claude-sonnet-5-5", 500000)), 0o644)
	args := []string{"--cache-dir", filepath.Join(root, "c"), "--now", "2026-05-02T12:46:00Z", "--budget", "0s",
		"--jq", `"\(.block_cost_usd*100|round) \(.block_partial)"`, "-r"}
	var outs []string
	for i := 0; i < 20; i++ {
		code, out, errs := run(t, realPayload(t, tr, nil), args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		outs = append(outs, strings.TrimSpace(out))
		if !strings.HasSuffix(out, "true\n") {
			break
		}
	}
	// 500 × 10k tokens at $2/M is $10, the other session $1.
	if len(outs) < 3 || !strings.HasSuffix(outs[0], " true") || outs[len(outs)-1] != "1100 false" {
		t.Errorf("calls under a zero budget: %q; want partial lines, then 1100 false", outs)
	}
	code, out, _ := run(t, realPayload(t, tr, nil), "--cache-dir", filepath.Join(root, "c"), "--now", "2026-05-02T12:46:00Z")
	if code != 0 || !strings.Contains(out, "| $11.00 block,") {
		t.Errorf("after: %q", out)
	}
}

// A FIFO where a transcript is expected (the payload's own, or another
// session's in the same projects dir) is skipped, with a warning for the
// payload's own, instead of blocking the status line forever.
func TestFIFOTranscript(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "projects", "-home-dev-p")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(proj, "11111111-2222-4333-8444-555555555555.jsonl")
	sibling := filepath.Join(proj, "21111111-2222-4333-8444-555555555555.jsonl")
	if err := os.WriteFile(tr, []byte(assistant("m1", "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 1000000)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, fifo := range []string{sibling, tr + ".fifo"} {
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skip(err)
		}
	}
	for _, c := range []struct {
		path, out, warn string
	}{
		{tr, "Opus 5.5 | $0.03 session | $2.00 block, 2h14m left | ctx 2%\n", ""},
		{tr + ".fifo", "Opus 5.5 | $0.03 session | $2.00 block, 2h14m left | ctx 2%\n", "a named pipe (FIFO), not a regular file"},
	} {
		done := make(chan struct{})
		var code int
		var out, errs string
		go func() {
			defer close(done)
			code, out, errs = run(t, realPayload(t, c.path, nil), "--cache-dir", filepath.Join(root, "cache"), "--now", "2026-05-02T12:46:00Z")
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			for _, fifo := range []string{sibling, tr + ".fifo"} {
				if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
			}
			<-done
			t.Fatalf("%s: blocked on a FIFO", c.path)
		}
		if code != 0 || out != c.out || c.warn == "" && errs != "" || !strings.Contains(errs, c.warn) {
			t.Errorf("%s: exit %d, %q, stderr %q", c.path, code, out, errs)
		}
	}
}

// A fork copies the original's messages into its own transcript (same ids,
// requestSessionId naming the original): the block counts each once, as
// cc-extract usage --sum block does (issue 23: the line said $0.178 where
// cc-extract said $0.102), and a copy whose original is not read not at
// all. Records of one message count once; a
// <synthetic> record and one without a usage object count not at all.
func TestStatusLineForkCountsOnce(t *testing.T) {
	root, tr, other, write := twoSessions(t)
	m1 := assistant("m1", "2026-05-02T10:30:00.000Z", "claude-sonnet-5-5", 1000000)
	copied := strings.Replace(m1, `"sessionId":"s"`, `"sessionId":"fork","requestSessionId":"s"`, 1)
	synthetic := strings.Replace(assistant("m9", "2026-05-02T11:05:00.000Z", "<synthetic>", 5000000), `"requestedModel":"<synthetic>"`, `"isApiErrorMessage":true`, 1)
	noUsage := strings.Replace(assistant("m8", "2026-05-02T11:06:00.000Z", "claude-sonnet-5-5", 1), `"usage":{"input_tokens":1,"output_tokens":0}`, `"usage":null`, 1)
	write(tr, m1+m1)
	// A copy whose original is not read (deleted, or older than the
	// window): cc-extract leaves it out too.
	orphan := strings.Replace(assistant("m7", "2026-05-02T10:40:00.000Z", "claude-sonnet-5-5", 700000), `"sessionId":"s"`, `"sessionId":"fork","requestSessionId":"gone"`, 1)
	write(other, copied+orphan+assistant("m2", "2026-05-02T11:00:00.000Z", "claude-sonnet-5-5", 500000)+synthetic+noUsage)
	args := []string{"--cache-dir", filepath.Join(root, "cache"), "--now", "2026-05-02T12:46:00Z", "--jq", "[.block_cost_usd, .block_unpriced] | @json", "-r"}
	for _, payload := range []string{tr, other} { // either session asks
		code, out, errs := run(t, realPayload(t, payload, nil), args...)
		if code != 0 || out != "[3,0]\n" {
			t.Errorf("asked from %s: exit %d, %q, %s", filepath.Base(payload), code, out, errs)
		}
	}
}
