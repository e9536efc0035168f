package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/bench/corpus"
)

func TestSessionOfPath(t *testing.T) {
	const id = "4d06ead3-51d1-48fb-b9e8-f6e57d23a86d"
	for in, want := range map[string]string{
		"/c/projects/-x/" + id + ".jsonl":                                   id,
		"/c/projects/-x/" + id + ".jsonl.zst":                               id,
		"/c/projects/-x/" + id + "/subagents/agent-a0123456789abcdef.jsonl": id,
		"/c/projects/-x/" + id + "/tool-results/abc123def.txt":              id,
		"/c/projects/-x/notes.jsonl":                                        "",
		"":                                                                  "",
	} {
		if got := sessionOfPath(in); got != want {
			t.Errorf("sessionOfPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSessionIDs(t *testing.T) {
	const a, b = "11111111-2222-4333-8444-555555555555", "4d06ead3-51d1-48fb-b9e8-f6e57d23a86d"
	in := `{"session_id":"` + b + `","matches":2}
{"transcript_path":"/x/projects/-p/` + a + `.jsonl"}
/x/projects/-p/` + b + `/subagents/agent-a1.jsonl

`
	got, err := sessionIDs(strings.NewReader(in))
	if err != nil || !slices.Equal(got, []string{a, b}) {
		t.Fatalf("sessionIDs = %v, %v", got, err)
	}
	for _, bad := range []string{"{not json\n", "/x/projects/-p/notes.jsonl\n", `{"matches":1}` + "\n"} {
		if _, err := sessionIDs(strings.NewReader(bad)); err == nil {
			t.Errorf("sessionIDs(%q) gave no error", bad)
		}
	}
}

func TestDiffSets(t *testing.T) {
	c := diffSets([]string{"a", "b", "c"}, []string{"b", "c", "d"})
	if c.OK || !slices.Equal(c.Missing, []string{"a"}) || !slices.Equal(c.Extra, []string{"d"}) || c.Want != 3 || c.Got != 3 {
		t.Fatalf("diffSets = %+v", c)
	}
	if c := diffSets([]string{"a"}, []string{"a"}); !c.OK {
		t.Fatalf("equal sets: %+v", c)
	}
}

func expected() corpus.ExpectedUsage {
	d1 := corpus.DayTokens{Date: "2026-08-01", Tokens: corpus.Tokens{InputTokens: 10, OutputTokens: 20, CacheCreationInputTokens: 30, CacheReadInputTokens: 40, TotalTokens: 100, Messages: 2}}
	d2 := corpus.DayTokens{Date: "2026-08-02", Tokens: corpus.Tokens{InputTokens: 1, OutputTokens: 2, CacheCreationInputTokens: 3, CacheReadInputTokens: 4, TotalTokens: 10, Messages: 1}}
	m1 := d1
	m1.OutputTokens, m1.TotalTokens = 15, 95
	return corpus.ExpectedUsage{Days: []corpus.DayTokens{d1, d2}, Totals: corpus.Tokens{TotalTokens: 110},
		MainOnlyDays: []corpus.DayTokens{m1, d2}, MainOnlyTotals: corpus.Tokens{TotalTokens: 105}}
}

func TestCompareUsage(t *testing.T) {
	eu := expected()
	for _, c := range []struct {
		name, out, matches string
		ok                 bool
	}{
		{"cc-extract ndjson", `{"date":"2026-08-01","input_tokens":10,"output_tokens":20,"cache_read_input_tokens":40,"cache_creation_input_tokens":30}
{"date":"2026-08-02","input_tokens":1,"output_tokens":2,"cache_read_input_tokens":4,"cache_creation_input_tokens":3}`, "all", true},
		{"ccusage json", `{"daily":[{"date":"2026-08-01","inputTokens":10,"outputTokens":20,"cacheCreationTokens":30,"cacheReadTokens":40},
{"date":"2026-08-02","inputTokens":1,"outputTokens":2,"cacheCreationTokens":3,"cacheReadTokens":4}],"totals":{}}`, "all", true},
		{"rows split per model", `{"date":"2026-08-01","input_tokens":4,"output_tokens":20,"cache_read_input_tokens":40,"cache_creation_input_tokens":30}
{"date":"2026-08-01","input_tokens":6}
{"date":"2026-08-02","input_tokens":1,"output_tokens":2,"cache_read_input_tokens":4,"cache_creation_input_tokens":3}`, "all", true},
		{"subagents left out", `{"date":"2026-08-01","input_tokens":10,"output_tokens":15,"cache_read_input_tokens":40,"cache_creation_input_tokens":30}
{"date":"2026-08-02","input_tokens":1,"output_tokens":2,"cache_read_input_tokens":4,"cache_creation_input_tokens":3}`, "main", false},
		{"double counted", `{"date":"2026-08-01","input_tokens":20,"output_tokens":40,"cache_read_input_tokens":80,"cache_creation_input_tokens":60}
{"date":"2026-08-02","input_tokens":1,"output_tokens":2,"cache_read_input_tokens":4,"cache_creation_input_tokens":3}`, "", false},
		{"a day missing", `{"date":"2026-08-01","input_tokens":10,"output_tokens":20,"cache_read_input_tokens":40,"cache_creation_input_tokens":30}`, "", false},
		{"an extra day", `{"date":"2026-08-01","input_tokens":10,"output_tokens":20,"cache_read_input_tokens":40,"cache_creation_input_tokens":30}
{"date":"2026-08-02","input_tokens":1,"output_tokens":2,"cache_read_input_tokens":4,"cache_creation_input_tokens":3}
{"date":"2026-08-03","input_tokens":1}`, "", false},
	} {
		rows, err := usageRows(strings.NewReader(c.out))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := compareUsage(eu, rows)
		if got.OK != c.ok || got.Matches != c.matches {
			t.Errorf("%s: ok=%v matches=%q (%s), want ok=%v matches=%q", c.name, got.OK, got.Matches, got.Detail, c.ok, c.matches)
		}
	}
	if _, err := usageRows(strings.NewReader(`{"x":1}`)); err == nil {
		t.Error("rows without dates gave no error")
	}
}

func FuzzUsageRows(f *testing.F) {
	f.Add(`{"date":"2026-08-01","input_tokens":10}`)
	f.Add(`{"daily":[{"date":"2026-08-01","inputTokens":1e3}]}`)
	f.Add(`{"date":"2026-08-0`)
	f.Fuzz(func(t *testing.T, s string) {
		rows, err := usageRows(strings.NewReader(s))
		if err == nil && len(rows) == 0 {
			t.Fatal("no error and no rows")
		}
		for _, r := range rows {
			if len(r.Date) != 10 {
				t.Fatalf("date %q", r.Date)
			}
		}
	})
}

func FuzzSessionIDs(f *testing.F) {
	f.Add(`{"session_id":"4d06ead3-51d1-48fb-b9e8-f6e57d23a86d"}` + "\n/p/11111111-2222-4333-8444-555555555555.jsonl\n")
	f.Add("{}\n")
	f.Fuzz(func(t *testing.T, s string) {
		ids, err := sessionIDs(strings.NewReader(s))
		if err != nil {
			return
		}
		if !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
			t.Fatalf("ids not sorted and unique: %v", ids)
		}
	})
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestTimeAndReport(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	tm, err := timeOne([]string{"sh", "-c", "echo hi; exit 3"}, "", out, "")
	if err != nil || tm.Exit != 3 || tm.MaxRSSKB <= 0 || tm.WallS <= 0 {
		t.Fatalf("timeOne = %+v, %v", tm, err)
	}
	if b, _ := os.ReadFile(out); string(b) != "hi\n" {
		t.Fatalf("stdout %q", b)
	}
	if _, err := timeOne([]string{filepath.Join(dir, "missing")}, "", "", ""); err == nil {
		t.Fatal("a missing command gave no error")
	}
	res := filepath.Join(dir, "results.ndjson")
	lines := `{"kind":"env","key":"machine","value":"test box"}
{"kind":"run","pair":"p1","side":"a","wall_s":2,"max_rss_kb":2048}
{"kind":"run","pair":"p1","side":"b","wall_s":1,"max_rss_kb":1024}
{"kind":"run","pair":"p1","side":"a","wall_s":4}
{"kind":"run","pair":"p1","side":"b","wall_s":1}
{"kind":"pair","pair":"p1","title":"first","a":"cc-x","b":"peer","target":"≤ 1.0x","target_ratio":1,"status":"ok"}
{"kind":"run","pair":"p2","side":"a","wall_s":0.5}
{"kind":"run","pair":"p2","side":"b","wall_s":1}
{"kind":"pair","pair":"p2","title":"second","a":"cc-y","b":"peer","target":"≤ 1.0x","target_ratio":1,"status":"ok"}
{"kind":"pair","pair":"p3","title":"third","a":"cc-z","b":"peer","target":"≤ 1.0x","target_ratio":1,"status":"not implemented"}
{"kind":"check","name":"c1","ok":true,"detail":"fine"}
{"kind":"check","name":"c2","ok":false,"detail":"bad | worse"}
`
	if err := os.WriteFile(res, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := readRecs(res)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	writeReport(&buf, recs)
	md := buf.String()
	for _, want := range []string{
		"| machine | test box |",
		"| first | `cc-x` | 3.00 s | `peer` | 1.00 s | 2 | 3.00x | ≤ 1.0x | missed by 200% (3.00x over) |",
		"| second | `cc-y` | 500.0 ms | `peer` | 1.00 s | 1 | 0.50x | ≤ 1.0x | met |",
		"| third | `cc-z` | - | `peer` | - | 0 | - | ≤ 1.0x | not implemented |",
		"| `cc-x` | 2.0 MB |",
		"| c1 | ok | fine |",
		`| c2 | FAIL | bad \| worse |`,
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// TestTimeEnv: "env K=V cmd" runs cmd with K=V set, without env itself.
func TestTimeEnv(t *testing.T) {
	envBin, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env")
	}
	for _, c := range []struct {
		argv []string
		exit int
	}{
		{[]string{envBin, "CCPIPE_T=yes", "sh", "-c", `test "$CCPIPE_T" = yes`}, 0},
		{[]string{envBin, "CCPIPE_T=no", "sh", "-c", `test "$CCPIPE_T" = yes`}, 1},
		{[]string{"env", "CCPIPE_T=", "sh", "-c", `test -z "$CCPIPE_T"`}, 0},
	} {
		tm, err := timeOne(c.argv, "", "", "")
		if err != nil || tm.Exit != c.exit {
			t.Errorf("%v: exit %d, %v; want exit %d", c.argv, tm.Exit, err, c.exit)
		}
	}
}

// TestTimeCopy: -copy puts the file in place before the command runs.
func TestTimeCopy(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	if err := os.WriteFile(src, []byte("setup"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := timeCmd([]string{"-copy", src + ":" + dst, "--", "sh", "-c", `test "$(cat "$0")" = setup`, dst}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"exit":0`) {
		t.Errorf("the command did not find the copy: %s", out.String())
	}
	if err := timeCmd([]string{"-copy", src, "--", "true"}, &out); err == nil {
		t.Error("-copy without a destination was taken")
	}
}
