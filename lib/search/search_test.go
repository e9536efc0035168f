package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// writeFile writes content to dir/name, compressed by the name's suffix.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	data := []byte(content)
	switch {
	case strings.HasSuffix(name, ".gz"):
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(data)
		zw.Close()
		data = b.Bytes()
	case strings.HasSuffix(name, ".zst"):
		enc, _ := zstd.NewWriter(nil)
		data = enc.EncodeAll(data, nil)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// session builds a session: the main transcript (name picks compression)
// and extra files under its session dir.
func session(t *testing.T, name, main string, extra map[string]string) string {
	dir := t.TempDir()
	p := writeFile(t, dir, name, main)
	for rel, content := range extra {
		writeFile(t, layout.SessionDir(p), rel, content)
	}
	return p
}

func search(t *testing.T, o Options, transcript string) Result {
	t.Helper()
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return s.NewScanner().Session(context.Background(), transcript)
}

func TestSessions(t *testing.T) {
	const main = `{"type":"user","message":{"content":"why is the login test Flaky?"}}` + "\n"
	extra := map[string]string{
		"subagents/agent-a1.jsonl":     `{"type":"assistant","text":"found a RACE in the pool"}` + "\n",
		"subagents/agent-a1.meta.json": `{"agentType":"Explore","note":"metaonly"}`,
		"tool-results/b7x.txt":         "line 1\nSEGFAULT at 0x0\n",
	}
	tests := []struct {
		name  string
		file  string // the transcript's name, which picks its compression
		o     Options
		want  bool
		found []bool
	}{
		{"one term", "s.jsonl", Options{Raw: true, Terms: []string{"flaky"}}, true, []bool{true}},
		{"all present", "s.jsonl", Options{Raw: true, Terms: []string{"flaky", "race", "segfault"}}, true, []bool{true, true, true}},
		{"one missing", "s.jsonl", Options{Raw: true, Terms: []string{"flaky", "absent"}}, false, nil},
		{"only in a subagent", "s.jsonl", Options{Raw: true, Terms: []string{"race in the POOL"}}, true, []bool{true}},
		{"only in a tool result", "s.jsonl", Options{Raw: true, Terms: []string{"segfault AT"}}, true, []bool{true}},
		{"meta.json is not searched", "s.jsonl", Options{Raw: true, Terms: []string{"metaonly"}}, false, []bool{false}},
		{"any, one present", "s.jsonl", Options{Raw: true, Terms: []string{"absent", "segfault"}, Any: true}, true, nil},
		{"any, none present", "s.jsonl", Options{Raw: true, Terms: []string{"absent", "nothere"}, Any: true}, false, []bool{false, false}},
		{"gzip transcript", "s.jsonl.gz", Options{Raw: true, Terms: []string{"LOGIN TEST"}}, true, []bool{true}},
		{"zstd transcript", "s.jsonl.zst", Options{Raw: true, Terms: []string{"login", "race"}}, true, []bool{true, true}},
		{"gzip without suffix", "s.jsonl.gzipped", Options{Raw: true, Terms: []string{"flaky"}}, true, []bool{true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := session(t, strings.Replace(tt.file, ".gzipped", ".gz", 1), main, extra)
			if strings.HasSuffix(tt.file, ".gzipped") {
				// Renamed after compression: only the magic number tells.
				q := strings.TrimSuffix(p, ".gz")
				if err := os.Rename(p, q); err != nil {
					t.Fatal(err)
				}
				p = q
			}
			res := search(t, tt.o, p)
			if len(res.Errs) > 0 {
				t.Fatalf("errors: %v", res.Errs)
			}
			if res.Matched != tt.want {
				t.Errorf("Matched = %v, want %v", res.Matched, tt.want)
			}
			if tt.found != nil && !reflect.DeepEqual(res.Found, tt.found) {
				t.Errorf("Found = %v, want %v", res.Found, tt.found)
			}
		})
	}
}

// TestLazyAnd: the rare term shows up only after the common one was passed
// by, in an earlier file and in earlier buffers; the session still matches.
func TestLazyAnd(t *testing.T) {
	filler := strings.Repeat("x", 300)
	p := session(t, "s.jsonl", filler+"common word"+filler+"\n", map[string]string{
		"tool-results/t.txt": filler + "Q9ZJ" + filler,
	})
	for _, bs := range []int{16, 100, 1 << 16} {
		res := search(t, Options{Raw: true, Terms: []string{"common word", "q9zj"}, BufSize: bs}, p)
		if !res.Matched {
			t.Errorf("buffer %d: no match, found %v", bs, res.Found)
		}
		res = search(t, Options{Raw: true, Terms: []string{"common word", "q9zj", "absent"}, BufSize: bs}, p)
		if res.Matched {
			t.Errorf("buffer %d: matched without the third term", bs)
		}
	}
}

// TestStopsEarly: once every term is found the rest is not read.
func TestStopsEarly(t *testing.T) {
	p := session(t, "s.jsonl", "needle\n"+strings.Repeat("y", 1<<20), map[string]string{
		"tool-results/t.txt": strings.Repeat("z", 1<<20),
	})
	res := search(t, Options{Raw: true, Terms: []string{"NEEDLE"}, BufSize: 4096}, p)
	if !res.Matched || res.Bytes > 8192 {
		t.Errorf("matched %v after %d bytes, want a match within the first buffer", res.Matched, res.Bytes)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	res := search(t, Options{Raw: true, Terms: []string{"x"}}, filepath.Join(dir, "gone.jsonl"))
	if res.Matched || len(res.Errs) != 1 || !errors.Is(res.Errs[0], fs.ErrNotExist) {
		t.Errorf("missing transcript: %+v", res)
	}
	p := writeFile(t, dir, "bad.jsonl.gz", "")
	os.WriteFile(p, []byte("\x1f\x8bnot gzip at all"), 0o644)
	res = search(t, Options{Raw: true, Terms: []string{"x"}}, p)
	if len(res.Errs) != 1 {
		t.Errorf("corrupt gzip: errors %v", res.Errs)
	}
}

// TestTruncatedArchive: a gzip or zstd file cut short (a copy that did not
// finish) is reported, not taken for a whole file; the part that could be
// decompressed is still searched.
func TestTruncatedArchive(t *testing.T) {
	text := "head needle " + strings.Repeat("filler line of a transcript\n", 4000)
	for _, name := range []string{"cut.jsonl.gz", "cut.jsonl.zst", "plain-named-gz.jsonl"} {
		dir := t.TempDir()
		p := writeFile(t, dir, strings.TrimSuffix(name, ".jsonl")+".tmp.gz", text)
		if strings.HasSuffix(name, ".zst") {
			p = writeFile(t, dir, "x.zst", text)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cut := filepath.Join(dir, name)
		if err := os.WriteFile(cut, data[:len(data)*2/3], 0o644); err != nil {
			t.Fatal(err)
		}
		res := search(t, Options{Raw: true, Terms: []string{"absent"}}, cut)
		if res.Matched || len(res.Errs) != 1 || !strings.Contains(fmt.Sprint(res.Errs[0]), cut) {
			t.Errorf("%s: matched %v, errors %v; want one error naming the file", name, res.Matched, res.Errs)
		}
		// zstd decodes a block only whole: its cut file may give nothing.
		if res = search(t, Options{Raw: true, Terms: []string{"NEEDLE"}}, cut); !res.Matched && !strings.HasSuffix(name, ".zst") {
			t.Errorf("%s: the readable head was not searched", name)
		}
	}
}

// TestRescanReportsOnce: a file read twice by the lazy AND (searched
// for the rarest term alone, then again for the others) reports its read
// error once.
func TestRescanReportsOnce(t *testing.T) {
	p := session(t, "s.jsonl", "common words only\n", map[string]string{
		"tool-results/z.txt": "Q9ZJ",
	})
	gz := writeFile(t, t.TempDir(), "a.gz", strings.Repeat("subagent line\n", 2000))
	data, err := os.ReadFile(gz)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(layout.SessionDir(p), "subagents", "agent-a.jsonl.gz")
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, terms := range [][]string{{"absent", "q9zj"}, {"common", "q9zj"}} {
		res := search(t, Options{Raw: true, Terms: terms, BufSize: 64}, p)
		if len(res.Errs) != 1 {
			t.Errorf("%q: errors %v, want the cut subagent file once", terms, res.Errs)
		}
	}
}

func TestNewRejects(t *testing.T) {
	for _, terms := range [][]string{nil, {""}, {"ok", "\xff"}} {
		if _, err := New(Options{Raw: true, Terms: terms}); err == nil {
			t.Errorf("New(%q) accepted", terms)
		}
	}
}

func TestPipelineOrder(t *testing.T) {
	dir := t.TempDir()
	var jobs []Job
	for i := range 60 {
		content := strings.Repeat("filler ", i*500)
		if i%3 == 0 {
			content += "MATCH"
		}
		jobs = append(jobs, Job{TranscriptPath: writeFile(t, dir, fmt.Sprintf("%02d.jsonl", i), content), Data: i})
	}
	s, _ := New(Options{Raw: true, Terms: []string{"match"}})
	for _, workers := range []int{1, 3, 8} {
		var got []int
		p := s.Start(context.Background(), workers, func(j Job, r Result) error {
			if r.Matched {
				got = append(got, j.Data.(int))
			}
			return nil
		})
		for _, j := range jobs {
			if err := p.Add(j); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		var want []int
		for i := 0; i < 60; i += 3 {
			want = append(want, i)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("workers %d: order %v, want %v", workers, got, want)
		}
	}
	stop := errors.New("reader gone")
	n := 0
	p := s.Start(context.Background(), 2, func(Job, Result) error { n++; return stop })
	var addErr error
	for _, j := range jobs {
		if addErr = p.Add(j); addErr != nil {
			break
		}
	}
	if err := p.Wait(); !errors.Is(err, stop) || addErr == nil || n != 1 {
		t.Errorf("emit error: Wait %v, Add %v, emitted %d", err, addErr, n)
	}
}

// TestSearchAll: every job is searched once, whatever the number of
// workers; an error from emit stops the search and comes back, as does a
// cancelled context.
func TestSearchAll(t *testing.T) {
	dir := t.TempDir()
	var jobs []Job
	for i := range 40 {
		content := strings.Repeat("filler ", i*300)
		if i%4 == 0 {
			content += "MATCH"
		}
		jobs = append(jobs, Job{TranscriptPath: writeFile(t, dir, fmt.Sprintf("%02d.jsonl", i), content), Data: i})
	}
	s, _ := New(Options{Raw: true, Terms: []string{"match"}})
	for _, workers := range []int{1, 3, 100} {
		seen := map[int]bool{}
		var matched []int
		err := s.SearchAll(context.Background(), workers, jobs, func(j Job, r Result) error {
			if seen[j.Data.(int)] {
				t.Errorf("job %d emitted twice", j.Data.(int))
			}
			seen[j.Data.(int)] = true
			if r.Matched {
				matched = append(matched, j.Data.(int))
			}
			return nil
		})
		slices.Sort(matched)
		if err != nil || len(seen) != len(jobs) || !reflect.DeepEqual(matched, []int{0, 4, 8, 12, 16, 20, 24, 28, 32, 36}) {
			t.Errorf("workers %d: err %v, %d jobs seen, matched %v", workers, err, len(seen), matched)
		}
	}
	stop := errors.New("reader gone")
	n := 0
	err := s.SearchAll(context.Background(), 2, jobs, func(Job, Result) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("emit error: %v after %d emits", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.SearchAll(ctx, 2, jobs, func(Job, Result) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
