package search

import (
	"cmp"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// benchText is transcript-like filler: JSON records with English words,
// paths and ids, and no planted term.
func benchText(n int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields(`the a to of and in is it for that this with test file error run go build func return
		value line read write session user assistant tool_use tool_result content type message text json path
		src lib main cmd package import string int bool nil err if else range make append len cap struct`)
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(`{"type":"assistant","uuid":"`)
		for range 8 {
			b.WriteByte("0123456789abcdef"[rng.IntN(16)])
		}
		b.WriteString(`","message":{"content":[{"type":"text","text":"`)
		for range 40 + rng.IntN(80) {
			w := words[rng.IntN(len(words))]
			if rng.IntN(10) == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			b.WriteString(w)
			b.WriteByte(' ')
		}
		b.WriteString("\"}]},\"cwd\":\"/home/dev/src/app\"}\n")
	}
	return []byte(b.String()[:n])
}

// benchTextMixed is benchText with one word in ten not ASCII: dashes,
// arrows, check marks and German and Polish words, as transcripts hold
// them, and none that folds to ASCII letters.
func benchTextMixed(n int) []byte {
	rng := rand.New(rand.NewPCG(5, 6))
	words := strings.Fields(`— → ✓ … für schön Änderung zażółć gęślą jaźń “quoted” été naïve ∑ 日本`)
	text := benchText(n)
	var b strings.Builder
	for _, w := range strings.SplitAfter(string(text), " ") {
		if rng.IntN(10) == 0 {
			w = words[rng.IntN(len(words))] + " "
		}
		b.WriteString(w)
	}
	return []byte(b.String()[:n])
}

func benchFind(b *testing.B, term string) { benchFindIn(b, term, benchText(DefaultBufSize)) }

func benchFindIn(b *testing.B, term string, text []byte) {
	m := newMatcher(term)
	var scratch []byte
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if m.find(text, &scratch) {
			b.Fatal("found")
		}
	}
}

func BenchmarkFindASCIIRare(b *testing.B)   { benchFind(b, "qzvandalpha") }
func BenchmarkFindASCIICommon(b *testing.B) { benchFind(b, "session errors") }
func BenchmarkFindFoldGreek(b *testing.B)   { benchFind(b, "σίσυφος") }
func BenchmarkFindFoldSharpS(b *testing.B)  { benchFind(b, "straße") }

// The ASCII terms in text with non-ASCII words: full case folding looks
// for the characters that fold into the term's letters (ſ, ß, K, ﬁ...).
func BenchmarkFindMixedRare(b *testing.B) {
	benchFindIn(b, "qzvandalpha", benchTextMixed(DefaultBufSize))
}
func BenchmarkFindMixedCommon(b *testing.B) {
	benchFindIn(b, "session errors", benchTextMixed(DefaultBufSize))
}
func BenchmarkFindMixedFlaky(b *testing.B) {
	benchFindIn(b, "flakytest", benchTextMixed(DefaultBufSize))
}
func BenchmarkFindMixedStrasse(b *testing.B) {
	benchFindIn(b, "strasse", benchTextMixed(DefaultBufSize))
}

// BenchmarkCorpus searches a generated config dir, every session with
// NumCPU workers, biggest first as cc-grep does, when CCPIPE_GREP_CORPUS
// names one (go run ./bench/gen). bench/grep.sh runs the command next to
// ripgrep. CCPIPE_GREP_WORKERS, CCPIPE_GREP_BUF, CCPIPE_GREP_MAPMIN and
// CCPIPE_GREP_MAPSIZE try other settings.
func BenchmarkCorpus(b *testing.B) {
	dir := os.Getenv("CCPIPE_GREP_CORPUS")
	if dir == "" {
		b.Skip("CCPIPE_GREP_CORPUS not set")
	}
	var jobs []Job
	var sizes []int64
	for _, pat := range []string{"*.jsonl", "*.jsonl.gz", "*.jsonl.zst"} {
		m, _ := filepath.Glob(filepath.Join(dir, "projects", "*", pat))
		for _, p := range m {
			fi, err := os.Stat(p)
			if err != nil {
				b.Fatal(err)
			}
			jobs = append(jobs, Job{TranscriptPath: p, Data: len(sizes)})
			sizes = append(sizes, fi.Size())
		}
	}
	slices.SortFunc(jobs, func(x, y Job) int { return cmp.Compare(sizes[y.Data.(int)], sizes[x.Data.(int)]) })
	bufSize, workers := benchSettings()
	for _, q := range []struct {
		name  string
		terms []string
	}{
		{"one", []string{"qzvandalpha"}},
		{"and", []string{"qzvandalpha", "qzvandbravo"}},
		{"nonascii", []string{"straße"}},
		{"greek", []string{"σίσυφος"}},
	} {
		b.Run(q.name, func(b *testing.B) {
			s, err := New(Options{Raw: true, Terms: q.terms, BufSize: bufSize})
			if err != nil {
				b.Fatal(err)
			}
			var ru0, ru1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			for b.Loop() {
				s.Bytes.Store(0)
				if err := s.SearchAll(context.Background(), workers, jobs, func(Job, Result) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
			// CPU time is steadier than wall time on a shared machine.
			b.ReportMetric(float64(ru1.Utime.Nano()-ru0.Utime.Nano())/float64(b.N)/1e6, "user-ms/op")
			b.ReportMetric(float64(ru1.Stime.Nano()-ru0.Stime.Nano())/float64(b.N)/1e6, "sys-ms/op")
			b.SetBytes(s.Bytes.Load())
		})
	}
}

// benchSettings reads the corpus benchmark's knobs (see BenchmarkCorpus).
func benchSettings() (bufSize, workers int) {
	bufSize, _ = strconv.Atoi(os.Getenv("CCPIPE_GREP_BUF"))
	workers = runtime.NumCPU()
	if n, err := strconv.Atoi(os.Getenv("CCPIPE_GREP_WORKERS")); err == nil {
		workers = n
	}
	if v, err := strconv.ParseInt(os.Getenv("CCPIPE_GREP_MAPMIN"), 10, 64); err == nil {
		mapMin = v
	}
	if v, err := strconv.ParseInt(os.Getenv("CCPIPE_GREP_MAPSIZE"), 10, 64); err == nil {
		mapSize = v
	}
	return bufSize, workers
}
