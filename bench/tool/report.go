package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Rec is one line of the results file bench/run writes.
type Rec struct {
	Kind        string  `json:"kind"` // env, pair, run, rss, check
	Key         string  `json:"key,omitempty"`
	Value       string  `json:"value,omitempty"`
	Pair        string  `json:"pair,omitempty"`
	Title       string  `json:"title,omitempty"`
	A           string  `json:"a,omitempty"`
	B           string  `json:"b,omitempty"`
	Side        string  `json:"side,omitempty"`
	Target      string  `json:"target,omitempty"`
	TargetRatio float64 `json:"target_ratio,omitempty"`
	Status      string  `json:"status,omitempty"`
	Note        string  `json:"note,omitempty"`
	Name        string  `json:"name,omitempty"`
	OK          *bool   `json:"ok,omitempty"`
	Detail      string  `json:"detail,omitempty"`
	Timing
}

func readRecs(p string) ([]Rec, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []Rec
	br := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var r Rec
			if jerr := json.Unmarshal(line, &r); jerr != nil {
				return nil, fmt.Errorf("%s:%d: %w", p, n, jerr)
			}
			recs = append(recs, r)
		}
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func fmtDur(s float64) string {
	switch {
	case s == 0:
		return "-"
	case s < 1:
		return fmt.Sprintf("%.1f ms", s*1000)
	default:
		return fmt.Sprintf("%.2f s", s)
	}
}

func fmtRSS(kb int64) string {
	if kb <= 0 {
		return "-"
	}
	if kb < 10*1024 {
		return fmt.Sprintf("%.1f MB", float64(kb)/1024)
	}
	return fmt.Sprintf("%d MB", kb/1024)
}

// PairResult is one row of the speed table.
type PairResult struct {
	Rec
	MedA, MedB float64
	RSSA, RSSB int64
	Runs       int
	Ratio      float64
	Verdict    string
}

func summarize(recs []Rec) []PairResult {
	var out []PairResult
	for _, p := range recs {
		if p.Kind != "pair" {
			continue
		}
		pr := PairResult{Rec: p}
		var a, b []float64
		for _, r := range recs {
			if r.Kind != "run" || r.Pair != p.Pair {
				continue
			}
			if r.Side == "a" {
				a = append(a, r.WallS)
				pr.RSSA = max(pr.RSSA, r.MaxRSSKB)
			} else {
				b = append(b, r.WallS)
				pr.RSSB = max(pr.RSSB, r.MaxRSSKB)
			}
		}
		pr.MedA, pr.MedB, pr.Runs = median(a), median(b), len(a)
		switch {
		case p.Status != "" && p.Status != "ok":
			pr.Verdict = p.Status
		case pr.MedA == 0 || pr.MedB == 0:
			pr.Verdict = "no runs"
		default:
			pr.Ratio = pr.MedA / pr.MedB
			switch {
			case p.TargetRatio == 0:
				pr.Verdict = "reported"
			case pr.Ratio <= p.TargetRatio:
				pr.Verdict = "met"
			default:
				pr.Verdict = fmt.Sprintf("missed by %.0f%% (%.2fx over)", 100*(pr.Ratio/p.TargetRatio-1), pr.Ratio/p.TargetRatio)
			}
		}
		out = append(out, pr)
	}
	return out
}

func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }

func writeReport(w io.Writer, recs []Rec) {
	fmt.Fprintf(w, "# ccpipe benchmarks\n\n")
	fmt.Fprintf(w, "Written by `bench/run` (see [docs/bench.md](../docs/bench.md)). Each pair ran alternately on the same files with a warm\n")
	fmt.Fprintf(w, "page cache; the table shows the median wall time of each side and the ratio ccpipe/peer (below 1.0 ccpipe is faster).\n")
	fmt.Fprintf(w, "Targets are the ratios from the issues. Peak RSS is wait4's maximum resident set size (what GNU `time -v` reports).\n\n")
	fmt.Fprintf(w, "## Machine, corpus and versions\n\n| | |\n|---|---|\n")
	for _, r := range recs {
		if r.Kind == "env" {
			fmt.Fprintf(w, "| %s | %s |\n", cell(r.Key), cell(r.Value))
		}
	}
	fmt.Fprintf(w, "\n## Speed\n\n| what | ccpipe | median | peer | median | runs | ratio | target | result |\n|---|---|---|---|---|---|---|---|---|\n")
	prs := summarize(recs)
	for _, p := range prs {
		ratio := "-"
		if p.Ratio > 0 {
			ratio = fmt.Sprintf("%.2fx", p.Ratio)
		}
		fmt.Fprintf(w, "| %s | `%s` | %s | `%s` | %s | %d | %s | %s | %s |\n", cell(p.Title), cell(p.A), fmtDur(p.MedA), cell(p.B), fmtDur(p.MedB), p.Runs, ratio, cell(p.Target), cell(p.Verdict))
	}
	fmt.Fprintf(w, "\n## Peak memory\n\n| command | peak RSS | wall | note |\n|---|---|---|---|\n")
	for _, p := range prs {
		if p.RSSA > 0 {
			fmt.Fprintf(w, "| `%s` | %s | %s | %s |\n", cell(p.A), fmtRSS(p.RSSA), fmtDur(p.MedA), cell(p.Title))
		}
		if p.RSSB > 0 {
			fmt.Fprintf(w, "| `%s` | %s | %s | peer: %s |\n", cell(p.B), fmtRSS(p.RSSB), fmtDur(p.MedB), cell(p.Title))
		}
	}
	for _, r := range recs {
		if r.Kind == "rss" {
			fmt.Fprintf(w, "| `%s` | %s | %s | %s |\n", cell(r.A), fmtRSS(r.MaxRSSKB), fmtDur(r.WallS), cell(r.Note))
		}
	}
	fmt.Fprintf(w, "\n## Correctness\n\n| check | result | detail |\n|---|---|---|\n")
	for _, r := range recs {
		if r.Kind != "check" {
			continue
		}
		res := "FAIL"
		switch {
		case r.Status != "":
			res = r.Status
		case r.OK != nil && *r.OK:
			res = "ok"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", cell(r.Name), res, cell(r.Detail))
	}
	var notes []string
	for _, r := range recs {
		if r.Note != "" && r.Kind == "pair" {
			notes = append(notes, fmt.Sprintf("- %s: %s", r.Title, r.Note))
		}
		if r.Kind == "note" {
			notes = append(notes, "- "+r.Value)
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\n## Notes\n\n%s\n", strings.Join(notes, "\n"))
	}
}

func reportCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	results := fs.String("results", "", "results.ndjson written by bench/run")
	out := fs.String("out", "", "RESULTS.md to write (default: stdout)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	recs, err := readRecs(*results)
	if err != nil {
		return err
	}
	w := stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	writeReport(w, recs)
	return nil
}
