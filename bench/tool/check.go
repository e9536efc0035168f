package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/ccpipe/ccpipe/bench/corpus"
)

var uuidRe = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// sessionOfPath maps a file under a projects dir to its session id: the
// transcript's own name, or the <session>/ dir that holds subagents and tool results.
func sessionOfPath(p string) string {
	p = strings.TrimSpace(p)
	parts := strings.Split(path.Clean(strings.ReplaceAll(p, `\`, "/")), "/")
	for i := len(parts) - 1; i >= 0; i-- {
		base := parts[i]
		for _, ext := range []string{".zst", ".gz", ".jsonl"} {
			base = strings.TrimSuffix(base, ext)
		}
		if uuidRe.MatchString(base) {
			return base
		}
	}
	return ""
}

// sessionIDs reads cc-grep output: NDJSON records with session_id (or a
// transcript_path), or plain paths one a line as rg -l prints them.
func sessionIDs(r io.Reader) ([]string, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var ids []string
	for {
		line, err := br.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 {
			id := ""
			if t[0] == '{' {
				var rec struct {
					SessionID      string `json:"session_id"`
					TranscriptPath string `json:"transcript_path"`
				}
				if jerr := json.Unmarshal(t, &rec); jerr != nil {
					return nil, fmt.Errorf("bad record %.80q: %w", t, jerr)
				}
				id = rec.SessionID
				if id == "" {
					id = sessionOfPath(rec.TranscriptPath)
				}
			} else {
				id = sessionOfPath(string(t))
			}
			if id == "" {
				return nil, fmt.Errorf("no session id in %.80q", t)
			}
			ids = append(ids, id)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// Check is one correctness verdict, as bench/run records it.
type Check struct {
	OK      bool     `json:"ok"`
	Want    int      `json:"want"`
	Got     int      `json:"got"`
	Missing []string `json:"missing,omitempty"`
	Extra   []string `json:"extra,omitempty"`
	Detail  string   `json:"detail"`
}

func diffSets(want, got []string) Check {
	c := Check{Want: len(want), Got: len(got)}
	for _, w := range want {
		if _, ok := slices.BinarySearch(got, w); !ok {
			c.Missing = append(c.Missing, w)
		}
	}
	for _, g := range got {
		if _, ok := slices.BinarySearch(want, g); !ok {
			c.Extra = append(c.Extra, g)
		}
	}
	c.OK = len(c.Missing) == 0 && len(c.Extra) == 0
	c.Detail = fmt.Sprintf("%d sessions expected, %d found, %d missing, %d extra", c.Want, c.Got, len(c.Missing), len(c.Extra))
	if len(c.Missing) > 3 {
		c.Missing = c.Missing[:3]
	}
	if len(c.Extra) > 3 {
		c.Extra = c.Extra[:3]
	}
	return c
}

func checkGrepCmd(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("check-grep", flag.ContinueOnError)
	planted := fs.String("planted", "", "planted.json")
	query := fs.String("query", "", "query name")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var pl corpus.Planted
	if err := readJSONFile(*planted, &pl); err != nil {
		return err
	}
	i := slices.IndexFunc(pl.Queries, func(q corpus.Query) bool { return q.Name == *query })
	if i < 0 {
		return fmt.Errorf("no query %q in %s", *query, *planted)
	}
	got, err := sessionIDs(stdin)
	if err != nil {
		return err
	}
	return writeJSONLine(stdout, diffSets(pl.Queries[i].Sessions, got))
}

func readJSONFile(p string, v any) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// num reads a JSON number field under any of the given names.
func num(m map[string]any, names ...string) (int64, bool) {
	for _, n := range names {
		if f, ok := m[n].(float64); ok {
			return int64(f), true
		}
	}
	return 0, false
}

func str(m map[string]any, names ...string) string {
	for _, n := range names {
		if s, ok := m[n].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// dayRow turns one output row into a day's tokens; it accepts the
// snake_case fields of cc-extract and the camelCase ones of ccusage,
// at the top level or under "usage"/"tokens".
func dayRow(m map[string]any) (corpus.DayTokens, bool) {
	var d corpus.DayTokens
	d.Date = str(m, "day", "date", "period", "key", "group")
	if len(d.Date) < 10 {
		return d, false
	}
	d.Date = d.Date[:10]
	src := m
	for _, k := range []string{"usage", "tokens"} {
		if sub, ok := m[k].(map[string]any); ok {
			src = sub
		}
	}
	var any1, any2 bool
	d.InputTokens, any1 = num(src, "input_tokens", "inputTokens")
	d.OutputTokens, any2 = num(src, "output_tokens", "outputTokens")
	d.CacheCreationInputTokens, _ = num(src, "cache_creation_input_tokens", "cacheCreationTokens", "cacheCreationInputTokens")
	d.CacheReadInputTokens, _ = num(src, "cache_read_input_tokens", "cacheReadTokens", "cacheReadInputTokens")
	d.TotalTokens = d.InputTokens + d.OutputTokens + d.CacheCreationInputTokens + d.CacheReadInputTokens
	return d, any1 || any2
}

// usageRows reads per-day rows from NDJSON (cc-extract) or one JSON
// document with a "daily" array (ccusage).
func usageRows(r io.Reader) ([]corpus.DayTokens, error) {
	dec := json.NewDecoder(r)
	var rows []corpus.DayTokens
	for {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		if arr, ok := m["daily"].([]any); ok {
			for _, e := range arr {
				if em, ok := e.(map[string]any); ok {
					if d, ok := dayRow(em); ok {
						rows = append(rows, d)
					}
				}
			}
			continue
		}
		if d, ok := dayRow(m); ok {
			rows = append(rows, d)
		}
	}
	if len(rows) == 0 {
		return nil, errors.New("no per-day usage rows in the output")
	}
	// Several rows of one day (per model, per session) are summed.
	byDay := map[string]*corpus.DayTokens{}
	for _, d := range rows {
		if byDay[d.Date] == nil {
			byDay[d.Date] = &corpus.DayTokens{Date: d.Date}
		}
		t := byDay[d.Date]
		t.InputTokens += d.InputTokens
		t.OutputTokens += d.OutputTokens
		t.CacheCreationInputTokens += d.CacheCreationInputTokens
		t.CacheReadInputTokens += d.CacheReadInputTokens
		t.TotalTokens += d.TotalTokens
	}
	out := make([]corpus.DayTokens, 0, len(byDay))
	for _, d := range byDay {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Date < out[j].Date })
	return out, nil
}

// UsageCheck compares per-day token sums with expected-usage.json.
type UsageCheck struct {
	OK       bool          `json:"ok"`
	Matches  string        `json:"matches"` // all, main (subagents left out) or ""
	Days     int           `json:"days"`
	Expected corpus.Tokens `json:"expected"`
	Got      corpus.Tokens `json:"got"`
	BadDays  []string      `json:"bad_days,omitempty"`
	Detail   string        `json:"detail"`
}

func sameDays(want, got []corpus.DayTokens) []string {
	g := map[string]corpus.DayTokens{}
	for _, d := range got {
		g[d.Date] = d
	}
	var bad []string
	for _, w := range want {
		d := g[w.Date]
		if d.InputTokens != w.InputTokens || d.OutputTokens != w.OutputTokens ||
			d.CacheCreationInputTokens != w.CacheCreationInputTokens || d.CacheReadInputTokens != w.CacheReadInputTokens {
			bad = append(bad, w.Date)
		}
		delete(g, w.Date)
	}
	for k, d := range g {
		if d.TotalTokens != 0 {
			bad = append(bad, k)
		}
	}
	sort.Strings(bad)
	return bad
}

func compareUsage(eu corpus.ExpectedUsage, rows []corpus.DayTokens) UsageCheck {
	c := UsageCheck{Days: len(rows), Expected: eu.Totals}
	for _, r := range rows {
		c.Got.Add(r.Tokens)
	}
	c.Got.Messages = 0
	c.Expected.Messages = 0
	bad := sameDays(eu.Days, rows)
	switch {
	case len(bad) == 0:
		c.OK, c.Matches = true, "all"
		c.Detail = fmt.Sprintf("%d days equal, %d tokens in all", len(eu.Days), eu.Totals.TotalTokens)
	case len(sameDays(eu.MainOnlyDays, rows)) == 0:
		c.Matches = "main"
		c.Detail = fmt.Sprintf("equal to the main transcripts only: subagent usage (%d tokens) left out", eu.Totals.TotalTokens-eu.MainOnlyTotals.TotalTokens)
	default:
		c.BadDays = bad
		if len(c.BadDays) > 5 {
			c.BadDays = c.BadDays[:5]
		}
		c.Detail = fmt.Sprintf("%d of %d days differ; total %d tokens, expected %d (%+.3f%%)", len(bad), len(eu.Days),
			c.Got.TotalTokens, eu.Totals.TotalTokens, 100*float64(c.Got.TotalTokens-eu.Totals.TotalTokens)/float64(max(eu.Totals.TotalTokens, 1)))
	}
	return c
}

func checkUsageCmd(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("check-usage", flag.ContinueOnError)
	expected := fs.String("expected", "", "expected-usage.json")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var eu corpus.ExpectedUsage
	if err := readJSONFile(*expected, &eu); err != nil {
		return err
	}
	rows, err := usageRows(stdin)
	if err != nil {
		return writeJSONLine(stdout, UsageCheck{Detail: "unreadable output: " + err.Error()})
	}
	return writeJSONLine(stdout, compareUsage(eu, rows))
}

func countLinesCmd(args []string, stdout io.Writer) error {
	var n int64
	buf := make([]byte, 1<<20)
	for _, p := range args {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		for {
			k, err := f.Read(buf)
			n += int64(bytes.Count(buf[:k], []byte{'\n'}))
			if err == io.EOF {
				break
			}
			if err != nil {
				f.Close()
				return err
			}
		}
		f.Close()
	}
	_, err := fmt.Fprintln(stdout, n)
	return err
}
