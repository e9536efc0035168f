// Package corpus generates a synthetic CLAUDE_CONFIG_DIR shaped like the
// output of Claude Code 2.1.328, with planted search terms and exact usage
// totals written beside it, so benchmarks can check their answers.
package corpus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options says what to generate. The zero value of a field means its default.
type Options struct {
	Out       string  // config dir to create; must not exist or be empty
	Size      int64   // approximate total bytes under projects/
	Sessions  int     // main transcripts (forks included)
	Seed      uint64  // same seed and options, same bytes
	HugeLine  int64   // size of the one huge line; negative: none
	Giants    int     // transcripts of GiantFrac*Size each; negative: none
	GiantFrac float64 // share of Size per giant transcript
	Zst       float64 // share of main transcripts written as .jsonl.zst only
	Workers   int     // parallel session writers
	Vocab     string  // the text's words: "code" (the default) or "short" (see vocabs)
}

// Defaults used when an Options field is zero.
const (
	DefaultHugeLine  = 300 << 20
	DefaultGiants    = 3
	DefaultGiantFrac = 0.15
	Version          = "2.1.328"
)

// The planted terms. None of them can occur in generated filler.
const (
	TermAndA        = "qzvandalpha"
	TermAndB        = "qzvandbravo"
	TermNonASCII    = "straße"
	TermSubagent    = "qzvsubagentonly"
	TermToolResults = "qzvtoolresultonly"
	TermHugeLine    = "qzvhugelineend"
)

// AnyTerms are the five terms of the --any query, each in few sessions.
var AnyTerms = []string{"qzvanyone", "qzvanytwo", "qzvanythree", "qzvanyfour", "qzvanyfive"}

// NonASCIIForms are the spellings planted for TermNonASCII; under full
// Unicode case folding all of them equal "strasse".
var NonASCIIForms = []string{"straße", "STRASSE", "Straße", "STRAẞE"}

// Query is one search with its exact expected answer.
type Query struct {
	Name      string   `json:"name"`
	Terms     []string `json:"terms"`
	Mode      string   `json:"mode"` // all or any
	PlantedAs []string `json:"planted_as,omitempty"`
	Where     string   `json:"where"`
	Sessions  []string `json:"sessions"`
}

// Planted is DIR/planted.json.
type Planted struct {
	Note    string              `json:"note"`
	Terms   map[string][]string `json:"terms"`
	Queries []Query             `json:"queries"`
	// Common holds, with -vocab zipf, the vocabulary's most frequent
	// words (at least 4 bytes): terms in most sessions.
	Common []string `json:"common,omitempty"`
}

// Tokens is one usage sum.
type Tokens struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	TotalTokens              int64 `json:"total_tokens"`
	Messages                 int64 `json:"messages"`
}

// Add adds u to t.
func (t *Tokens) Add(u Tokens) {
	t.InputTokens += u.InputTokens
	t.OutputTokens += u.OutputTokens
	t.CacheCreationInputTokens += u.CacheCreationInputTokens
	t.CacheReadInputTokens += u.CacheReadInputTokens
	t.TotalTokens += u.TotalTokens
	t.Messages += u.Messages
}

// DayTokens is the usage of one UTC day.
type DayTokens struct {
	Date string `json:"date"`
	Tokens
}

// ExpectedUsage is DIR/expected-usage.json.
type ExpectedUsage struct {
	Note           string      `json:"note"`
	Timezone       string      `json:"timezone"`
	Days           []DayTokens `json:"days"`
	Totals         Tokens      `json:"totals"`
	MainOnlyDays   []DayTokens `json:"main_only_days"`
	MainOnlyTotals Tokens      `json:"main_only_totals"`
}

// SessionInfo describes one generated session in the manifest.
type SessionInfo struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Bytes          int64  `json:"bytes"`
	Giant          bool   `json:"giant,omitempty"`
	HugeLine       bool   `json:"huge_line,omitempty"`
	ForkOf         string `json:"fork_of,omitempty"`
	Subagents      int    `json:"subagents,omitempty"`
	Compressed     bool   `json:"compressed,omitempty"`
}

// Manifest is DIR/manifest.json: what was asked and what was written.
type Manifest struct {
	Generator string        `json:"generator"`
	Options   Options       `json:"options"`
	Bytes     int64         `json:"bytes"`
	Files     int64         `json:"files"`
	Elapsed   string        `json:"elapsed"`
	Sessions  []SessionInfo `json:"sessions"`
}

// ParseSize reads sizes like 2GB, 500MB, 64KiB or 1048576 (K, M, G are powers of 1024).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(strings.ToUpper(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.m
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || f < 0 || f*float64(mult) > 1<<50 {
		return 0, fmt.Errorf("bad size %q: want a number with an optional KB, MB or GB suffix", s)
	}
	return int64(f * float64(mult)), nil
}

func (o *Options) defaults() error {
	if o.Out == "" {
		return errors.New("no output dir")
	}
	if o.Sessions <= 0 {
		return errors.New("sessions must be positive")
	}
	if o.Size <= 0 {
		return errors.New("size must be positive")
	}
	if o.HugeLine == 0 {
		o.HugeLine = DefaultHugeLine
	}
	if o.Giants == 0 {
		o.Giants = DefaultGiants
	}
	if o.GiantFrac == 0 {
		o.GiantFrac = DefaultGiantFrac
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	if o.Giants > o.Sessions {
		o.Giants = o.Sessions
	}
	if o.Giants > 0 && float64(o.Giants)*o.GiantFrac > 0.8 {
		return errors.New("giants take more than 80% of the size")
	}
	return nil
}

// plan is everything about one session decided up front by the master rng,
// so the bookkeeping does not depend on which worker ran first.
type plan struct {
	index    int
	id       string
	project  int
	target   int64
	giant    bool
	huge     bool
	zst      bool
	plants   []string // terms planted in this session (see plantKind)
	forkID   string   // a fork of this session is written too
	forkOnly bool     // this index is the fork of the previous one
}

// plantKind says where a term goes; the expected answers follow from it.
func plantKind(term string) string {
	switch term {
	case TermSubagent:
		return "subagent"
	case TermToolResults:
		return "tool_results"
	case TermHugeLine:
		return "huge_line"
	}
	return "main"
}

type project struct {
	cwd, slug, branch string
}

// slugOf is Claude Code's project dir name: each UTF-16 unit outside [A-Za-z0-9] becomes '-'.
func slugOf(cwd string) string {
	var b strings.Builder
	for _, r := range cwd {
		switch {
		case r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'):
			b.WriteRune(r)
		case r > 0xffff:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

var projectNames = []string{"api-server", "web-app", "cli-tools", "infra", "data-pipeline", "mobile", "docs-site",
	"billing", "auth-service", "search", "ml-experiments", "dotfiles", "game-engine", "payments", "café-app"}

func makeProjects(r *rand.Rand, n int) []project {
	ps := make([]project, n)
	for i := range ps {
		name := projectNames[i%len(projectNames)]
		if i >= len(projectNames) {
			name += "-" + strconv.Itoa(i/len(projectNames))
		}
		cwd := "/home/dev/work/" + name
		branch := pick(r, []string{"main", "master", "main", "develop", "HEAD"})
		if i%7 == 6 {
			wt := "wt-" + randID(r, "", 4, "abcdefghijklmnopqrstuvwxyz")
			cwd += "/.claude/worktrees/" + wt
			branch = "worktree-" + wt
		}
		ps[i] = project{cwd: cwd, slug: slugOf(cwd), branch: branch}
	}
	return ps
}

// makePlans decides sizes, giants, forks and plants for every session.
func makePlans(o *Options, r *rand.Rand) []plan {
	n := o.Sessions
	ps := make([]plan, n)
	nproj := max(1, n/15)
	giantSize := int64(float64(o.Size) * o.GiantFrac)
	budget := o.Size
	if o.Giants > 0 {
		budget -= int64(o.Giants) * giantSize
	}
	if o.HugeLine > 0 {
		budget -= o.HugeLine
	}
	// Log-normal sizes with the shape of ccusage's real-world profile
	// (median 105 KB, p90 654 KB), capped below the giants, scaled to budget.
	sigma := math.Log(654.0/105.0) / 1.2816
	raw := make([]float64, n)
	var sum float64
	capBytes := 87.0 * (1 << 20)
	if giantSize > 0 {
		capBytes = min(capBytes, float64(giantSize)/2)
	}
	for i := range ps {
		ps[i].index = i
		ps[i].id = newUUID(r)
		ps[i].project = r.IntN(nproj)
		if i < o.Giants {
			continue
		}
		raw[i] = min(105e3*math.Exp(sigma*r.NormFloat64()), capBytes)
		sum += raw[i]
	}
	scale := 1.0
	if sum > 0 {
		scale = float64(max(budget, 0)) / sum
	}
	for i := range ps {
		if i < o.Giants {
			ps[i].giant = true
			ps[i].target = giantSize
			continue
		}
		ps[i].target = max(int64(raw[i]*scale), 6<<10)
	}
	if o.HugeLine > 0 {
		ps[0].huge = true
		ps[0].plants = append(ps[0].plants, TermHugeLine)
	}
	// Forks: about 1% of sessions, of small sources only.
	for i := max(o.Giants, 0); i+1 < n; i++ {
		if ps[i].forkOnly || ps[i].target > 2<<20 || r.Float64() >= 0.01 {
			continue
		}
		ps[i].forkID = ps[i+1].id
		ps[i+1].forkOnly = true
	}
	// At least one fork on any corpus big enough, with a term to inherit.
	if !slices.ContainsFunc(ps, func(p plan) bool { return p.forkOnly }) {
		for i := max(o.Giants, 0); i+1 < n; i++ {
			if !ps[i].huge && !ps[i+1].huge {
				ps[i].forkID = ps[i+1].id
				ps[i+1].forkOnly = true
				ps[i].plants = append(ps[i].plants, TermAndA)
				break
			}
		}
	}
	// Plants, on sources only (a fork inherits its source's main-file terms).
	for i := range ps {
		p := &ps[i]
		if p.forkOnly {
			continue
		}
		a := r.Float64() < 0.08
		b := r.Float64() < 0.07 || a && r.Float64() < 0.25
		if a && !slices.Contains(p.plants, TermAndA) {
			p.plants = append(p.plants, TermAndA)
		}
		if b {
			p.plants = append(p.plants, TermAndB)
		}
		for _, t := range AnyTerms {
			if r.Float64() < 0.01 {
				p.plants = append(p.plants, t)
			}
		}
		if r.Float64() < 0.04 {
			p.plants = append(p.plants, TermNonASCII)
		}
		if r.Float64() < 0.03 {
			p.plants = append(p.plants, TermSubagent)
		}
		if r.Float64() < 0.03 {
			p.plants = append(p.plants, TermToolResults)
		}
		if o.Zst > 0 && !p.huge && r.Float64() < o.Zst {
			p.zst = true
		}
	}
	// Make every query non-empty even on tiny corpora.
	ensure := func(terms ...string) {
		for i := range ps {
			if ps[i].forkOnly || ps[i].huge {
				continue
			}
			has := 0
			for _, t := range terms {
				if slices.Contains(ps[i].plants, t) {
					has++
				}
			}
			if has == len(terms) {
				return
			}
		}
		k := len(ps) - 1
		for ps[k].forkOnly || ps[k].huge {
			k--
		}
		for _, t := range terms {
			if !slices.Contains(ps[k].plants, t) {
				ps[k].plants = append(ps[k].plants, t)
			}
		}
	}
	ensure(TermAndA, TermAndB)
	ensure(TermNonASCII)
	ensure(TermSubagent)
	ensure(TermToolResults)
	ensure(AnyTerms[0])
	return ps
}

// Generate writes the corpus and its answer files.
func Generate(ctx context.Context, o Options) (*Manifest, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	start := time.Now()
	if ents, err := os.ReadDir(o.Out); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("output dir %s is not empty", o.Out)
	}
	if err := os.MkdirAll(filepath.Join(o.Out, "projects"), 0o755); err != nil {
		return nil, fmt.Errorf("create output dir: %w", err)
	}
	if o.Vocab == "" {
		o.Vocab = "code"
	}
	vf := vocabs[o.Vocab]
	if vf == nil {
		return nil, fmt.Errorf("unknown vocabulary %q (code, short, zipf)", o.Vocab)
	}
	v := vf()
	master := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	// A Zipf vocabulary's rare words need pools big enough to hold them.
	ps := 1 << 20
	if v.cdf != nil {
		ps = 16 << 20
	}
	g := &gen{
		opts:     o,
		vocab:    v,
		prose:    newPool(v, master, ps, nil, true),
		code:     newPool(v, master, 2*ps, codeTemplates, false),
		shell:    newPool(v, master, ps, shellOutputs, false),
		b64:      b64Pool(master, 1<<20),
		base:     time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC),
		projects: makeProjects(master, max(1, o.Sessions/15)),
	}
	g.b64 = scrubB64(g.b64)
	for _, p := range []*pool{g.prose, g.code, g.shell} {
		if err := checkVocab(p.text); err != nil {
			return nil, err
		}
	}
	g.fixedTexts()
	plans := makePlans(&o, master)
	for _, p := range g.projects {
		if err := os.MkdirAll(filepath.Join(o.Out, "projects", p.slug, "memory"), 0o755); err != nil {
			return nil, fmt.Errorf("create project dir: %w", err)
		}
	}
	for _, d := range []string{"sessions", "todos", "shell-snapshots"} {
		if err := os.MkdirAll(filepath.Join(o.Out, d), 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", d, err)
		}
	}

	// Largest first so the giants do not finish last on one core.
	order := make([]int, 0, len(plans))
	for i := range plans {
		if !plans[i].forkOnly {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return plans[order[a]].target > plans[order[b]].target })
	results := make([]*result, len(plans))
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for w := 0; w < o.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				res, fork, err := g.session(plans, i)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				results[i] = res
				if fork != nil {
					results[i+1] = fork
				}
				mu.Unlock()
			}
		}()
	}
	for _, i := range order {
		if ctx.Err() != nil {
			break
		}
		mu.Lock()
		failed := firstErr != nil
		mu.Unlock()
		if failed {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m, err := g.finish(plans, results)
	if err != nil {
		return nil, err
	}
	m.Elapsed = time.Since(start).Round(time.Millisecond).String()
	return m, writeJSON(filepath.Join(o.Out, "manifest.json"), m)
}

// checkVocab makes sure no planted term, in any case or spelling, comes
// out of a vocabulary's words by chance.
func checkVocab(text string) error {
	low := strings.ToLower(text)
	for _, t := range append([]string{TermAndA, TermAndB, TermSubagent, TermToolResults, TermHugeLine, "strasse", "straße", "qzv"}, AnyTerms...) {
		if strings.Contains(low, t) {
			return fmt.Errorf("the vocabulary makes the planted term %q", t)
		}
	}
	return nil
}

// scrubB64 makes sure no planted term (in any case) occurs in the base64
// pool, also across the wrap-around where the pool is repeated.
func scrubB64(s string) string {
	b := []byte(s)
	terms := append([]string{TermAndA, TermAndB, TermSubagent, TermToolResults, TermHugeLine, "strasse", "qzv"}, AnyTerms...)
	for {
		changed := false
		low := strings.ToLower(string(b) + string(b[:64]))
		for _, t := range terms {
			for j := strings.Index(low, t); j >= 0; j = strings.Index(low, t) {
				k := (j + 1) % len(b)
				b[k] = '0'
				low = low[:j+1] + "0" + low[j+2:]
				changed = true
			}
		}
		if !changed {
			return string(b)
		}
	}
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// finish writes planted.json, expected-usage.json, history.jsonl and builds the manifest.
func (g *gen) finish(plans []plan, results []*result) (*Manifest, error) {
	o := g.opts
	terms := map[string][]string{}
	all := append([]string{TermAndA, TermAndB, TermNonASCII, TermSubagent, TermToolResults}, AnyTerms...)
	if o.HugeLine > 0 {
		all = append(all, TermHugeLine)
	}
	for _, t := range all {
		terms[t] = []string{}
	}
	days := map[string]*Tokens{}
	mainDays := map[string]*Tokens{}
	m := &Manifest{Generator: "ccpipe bench/gen", Options: o}
	var hist []byte
	for i, res := range results {
		if res == nil {
			return nil, fmt.Errorf("session %d was not written", i)
		}
		for _, t := range res.terms {
			terms[t] = append(terms[t], res.id)
		}
		for d, u := range res.days {
			if days[d] == nil {
				days[d] = &Tokens{}
			}
			days[d].Add(*u)
		}
		for d, u := range res.mainDays {
			if mainDays[d] == nil {
				mainDays[d] = &Tokens{}
			}
			mainDays[d].Add(*u)
		}
		m.Bytes += res.bytes
		m.Files += res.files
		m.Sessions = append(m.Sessions, res.info)
		hist = append(hist, res.history...)
	}
	for t := range terms {
		slices.Sort(terms[t])
		terms[t] = slices.Compact(terms[t])
	}
	inter := func(a, b []string) []string {
		out := []string{}
		for _, x := range a {
			if _, ok := slices.BinarySearch(b, x); ok {
				out = append(out, x)
			}
		}
		return out
	}
	union := func(ts ...string) []string {
		out := []string{}
		for _, t := range ts {
			out = append(out, terms[t]...)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	pl := Planted{
		Note: "terms are literal and match case-insensitively (straße under full Unicode case folding); " +
			"sessions are the main session ids whose main transcript, subagent transcripts or tool-results files hold the terms",
		Terms: terms,
		Queries: []Query{
			{Name: "one_term", Terms: []string{TermAndA}, Mode: "all", Where: "main transcripts", Sessions: terms[TermAndA]},
			{Name: "and", Terms: []string{TermAndA, TermAndB}, Mode: "all", Where: "main transcripts", Sessions: inter(terms[TermAndA], terms[TermAndB])},
			{Name: "any5", Terms: AnyTerms, Mode: "any", Where: "main transcripts", Sessions: union(AnyTerms...)},
			{Name: "non_ascii", Terms: []string{TermNonASCII}, Mode: "all", PlantedAs: NonASCIIForms, Where: "main transcripts", Sessions: terms[TermNonASCII]},
			{Name: "subagent_only", Terms: []string{TermSubagent}, Mode: "all", Where: "subagents/agent-*.jsonl only", Sessions: terms[TermSubagent]},
			{Name: "tool_results_only", Terms: []string{TermToolResults}, Mode: "all", Where: "tool-results/*.txt only", Sessions: terms[TermToolResults]},
		},
	}
	if o.Vocab == "zipf" {
		pl.Common = ZipfTop(10)
	}
	if o.HugeLine > 0 {
		pl.Queries = append(pl.Queries, Query{Name: "huge_line", Terms: []string{TermHugeLine}, Mode: "all", Where: "inside the huge line, after its image data", Sessions: terms[TermHugeLine]})
	}
	if err := writeJSON(filepath.Join(o.Out, "planted.json"), pl); err != nil {
		return nil, err
	}
	eu := ExpectedUsage{
		Note: "assistant usage summed once per message.id (the CLI repeats it on every content block record), " +
			"grouped by the UTC day of the message's timestamp; days include subagent transcripts, main_only_days do not; " +
			"forks copy their source's records and are not counted twice; <synthetic> messages carry zero usage and are not counted",
		Timezone: "UTC",
	}
	eu.Days, eu.Totals = sortedDays(days)
	eu.MainOnlyDays, eu.MainOnlyTotals = sortedDays(mainDays)
	if err := writeJSON(filepath.Join(o.Out, "expected-usage.json"), eu); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(o.Out, "history.jsonl"), hist, 0o644); err != nil {
		return nil, fmt.Errorf("write history.jsonl: %w", err)
	}
	return m, nil
}

func sortedDays(m map[string]*Tokens) ([]DayTokens, Tokens) {
	out := []DayTokens{}
	var tot Tokens
	for d, t := range m {
		out = append(out, DayTokens{Date: d, Tokens: *t})
		tot.Add(*t)
	}
	slices.SortFunc(out, func(a, b DayTokens) int { return strings.Compare(a.Date, b.Date) })
	return out, tot
}
