package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/bench/corpus"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// parallelCorpus generates a small multi-session corpus (subagents, .zst
// transcripts, one line of 128 KiB) and returns its main transcripts in
// order, with the fixture sets' (compactions, hook failures, refusals), a
// missing file and files that are not transcripts among them so that
// warnings and unreadable files are interleaved with facts.
func parallelCorpus(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	if _, err := corpus.Generate(context.Background(), corpus.Options{Out: dir, Size: 6 << 20, Sessions: 24, Seed: 5, HugeLine: 128 << 10}); err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "projects", "*", "*.jsonl*"))
	sort.Strings(paths)
	for _, set := range fixtureSets {
		if _, err := os.Stat(set.projects); err == nil {
			paths = append(paths, mainTranscripts(t, set.projects)...)
		}
	}
	if len(paths) < 10 {
		t.Fatalf("corpus has %d transcripts", len(paths))
	}
	bad := filepath.Join(dir, "bad.jsonl")
	body := "{\"type\":\"user\",\"uuid\":\"u1\"}\nnot json\n{\"x\":1}\n{broken\n"
	for i := range 14 {
		body += fmt.Sprintf("garbage %d\n", i)
	}
	if err := os.WriteFile(bad, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	notTranscript := filepath.Join(dir, "facts.jsonl")
	if err := os.WriteFile(notTranscript, []byte("{\"session_id\":\"s\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths = slices.Insert(paths, 3, filepath.Join(dir, "missing.jsonl"), bad)
	return slices.Insert(paths, 9, notTranscript)
}

// producePaths is a produce function adding paths.
func producePaths(paths []string) func(add func(string) error) error {
	return func(add func(string) error) error {
		for _, p := range paths {
			if err := add(p); err != nil {
				return err
			}
		}
		return nil
	}
}

// readInputs runs ReadTranscripts and Close over paths and returns the
// output, the warnings and the error.
func readInputs(t *testing.T, opts Options, paths []string) (string, []string, error) {
	t.Helper()
	var out bytes.Buffer
	var warnings []string
	opts.Warn = func(m string) { warnings = append(warnings, m) }
	x, err := New(opts, func(v any) error { return writeFact(&out, v) })
	if err != nil {
		t.Fatal(err)
	}
	err = x.ReadTranscripts(context.Background(), producePaths(paths))
	if cerr := x.Close(); cerr != nil {
		t.Fatal(cerr)
	}
	return out.String(), warnings, err
}

// readEntries is the sequential reference: every line decoded and fed
// to Entry, file by file, on one goroutine.
func readEntries(t testing.TB, opts Options, paths []string) string {
	t.Helper()
	var out bytes.Buffer
	x, err := New(opts, func(v any) error { return writeFact(&out, v) })
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		files, _ := x.files(p, nil)
		for _, f := range files {
			_, err := transcript.ReadFile(f.path, transcript.Options{Decode: true}, func(l *transcript.Line) error {
				o := f.origin
				o.Line = l.Number
				return x.Entry(o, l.Entry)
			})
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			if err := x.EndFile(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestWorkersSameOutput reads a multi-file corpus with one worker and
// with several, with queues small enough that workers wait for the
// caller, and wants the same facts in the same order and the same
// warnings in the same order: the order is the input's, not the
// workers'. The facts must also be those of a sequential read through
// Entry.
func TestWorkersSameOutput(t *testing.T) {
	paths := parallelCorpus(t)
	defer func(q, a, n, s int) {
		maxQueued, maxAhead, batchItems, batchSize = q, a, n, s
	}(maxQueued, maxAhead, batchItems, batchSize)
	big := []int{maxQueued, maxAhead, batchItems, batchSize}
	// With the subagents' transcripts: more files, and a session's read
	// on several workers.
	var cases []variant
	for _, v := range variants {
		v.opts.Subagents = true
		cases = append(cases, v)
	}
	for _, v := range cases {
		t.Run(v.name, func(t *testing.T) {
			maxQueued, maxAhead, batchItems, batchSize = big[0], big[1], big[2], big[3]
			o := v.opts
			o.Workers = 1
			want, wantWarn, wantErr := readInputs(t, o, paths)
			if !errors.Is(wantErr, ErrUnreadable) {
				t.Fatalf("error %v, want ErrUnreadable (a missing file and one not a transcript are read)", wantErr)
			}
			if len(want) == 0 || len(wantWarn) < 3 {
				t.Fatalf("%d bytes of facts, %d warnings: the corpus does not exercise the kind", len(want), len(wantWarn))
			}
			if ref := readEntries(t, v.opts, paths); ref != want {
				t.Fatalf("1 worker differs from the sequential read through Entry (%d bytes, want %d)", len(want), len(ref))
			}
			for _, small := range []bool{false, true} {
				if small {
					maxQueued, maxAhead, batchItems, batchSize = 2<<10, 4<<10, 3, 1<<10
				}
				for _, workers := range []int{4} {
					o.Workers = workers
					got, gotWarn, gotErr := readInputs(t, o, paths)
					if got != want {
						t.Errorf("%d workers (small queues %v): output differs from 1 worker's (%d bytes, want %d)", workers, small, len(got), len(want))
					}
					if !slices.Equal(gotWarn, wantWarn) {
						t.Errorf("%d workers (small queues %v): warnings\n%q\nwant\n%q", workers, small, gotWarn, wantWarn)
					}
					if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
						t.Errorf("%d workers: error %v, want %v", workers, gotErr, wantErr)
					}
				}
			}
		})
	}
}

// TestWorkersStop: an emit error or a cancellation stops every worker,
// also those waiting for room, and is what ReadTranscripts returns.
func TestWorkersStop(t *testing.T) {
	paths := parallelCorpus(t)
	defer func(q int) { maxQueued = q }(maxQueued)
	maxQueued = 1 << 10
	for _, kind := range []string{"texts", "shell", "conversation"} {
		stop := errors.New("stdout closed")
		ctx, cancel := context.WithCancel(context.Background())
		for _, want := range []error{stop, context.Canceled} {
			var n atomic.Int64
			x, err := New(Options{Kind: kind, Workers: 4}, func(any) error {
				if n.Add(1) == 5 {
					if want == stop {
						return stop
					}
					cancel()
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			err = x.ReadTranscripts(ctx, producePaths(paths))
			if !errors.Is(err, want) {
				t.Errorf("%s: error %v, want %v", kind, err, want)
			}
			if n.Load() > 5 && want == stop {
				t.Errorf("%s: %d facts emitted after the emit error", kind, n.Load()-5)
			}
		}
		cancel()
	}
}

// TestWorkersQueueBounded: while the caller is slow to take the first
// file's facts, the workers reading the files after it queue at most
// about maxAhead bytes of facts in all, then wait; the file being taken
// queues at most about maxQueued.
func TestWorkersQueueBounded(t *testing.T) {
	dir := t.TempDir()
	if _, err := corpus.Generate(context.Background(), corpus.Options{Out: dir, Size: 6 << 20, Sessions: 24, Seed: 5, HugeLine: -1, Zst: -1}); err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "projects", "*", "*.jsonl"))
	sort.Strings(paths)
	defer func(q, a, n, s int) {
		maxQueued, maxAhead, batchItems, batchSize, queuedHook = q, a, n, s, nil
	}(maxQueued, maxAhead, batchItems, batchSize)
	maxQueued, maxAhead, batchItems, batchSize = 2<<10, 6<<10, 8, 1<<10
	var mu sync.Mutex
	peakAhead, peakHead := 0, 0
	queuedHook = func(ahead, head int) {
		mu.Lock()
		peakAhead, peakHead = max(peakAhead, ahead), max(peakHead, head)
		mu.Unlock()
	}
	var maxFact, all int
	// (24 sessions: enough tool facts although a fork's copied calls are
	// its original's, not facts again.)
	x, err := New(Options{Kind: "tools", Workers: 4}, func(v any) error {
		if all == 0 {
			time.Sleep(300 * time.Millisecond) // the other workers run ahead meanwhile
		}
		maxFact = max(maxFact, factSize(v))
		all += factSize(v)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.ReadTranscripts(context.Background(), producePaths(paths)); err != nil {
		t.Fatal(err)
	}
	// A worker may queue its batch onto a queue just under the bound: a
	// batch is under batchSize before its last fact; each worker may.
	slack := batchSize + maxFact
	if bound := maxAhead + 4*slack; peakAhead > bound || peakAhead == 0 {
		t.Errorf("the files read ahead queued up to %d bytes of facts, want 1..%d (all facts: %d bytes)", peakAhead, bound, all)
	}
	if bound := maxQueued + slack; peakHead > bound || peakHead == 0 {
		t.Errorf("the file taken queued up to %d bytes of facts, want 1..%d", peakHead, bound)
	}
	if all < 4*(maxAhead+4*slack) {
		t.Errorf("the files' facts are %d bytes (the largest %d): too few to tell", all, maxFact)
	}
}

// TestWarnInOrder: what produce warns of through Warn comes between the
// warnings of the transcripts added before and after it, however many
// workers read them; after the last one, it still comes.
func TestWarnInOrder(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 6 {
		p := filepath.Join(dir, fmt.Sprintf("%d.jsonl", i))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("{\"type\":\"user\",\"uuid\":\"u\"}\nbad %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	for _, kind := range []string{"texts", "usage"} {
		var got []string
		x, err := New(Options{Kind: kind, Workers: 4, Warn: func(m string) { got = append(got, m) }}, func(any) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		err = x.ReadTranscripts(context.Background(), func(add func(string) error) error {
			for i, p := range paths {
				x.Warn(fmt.Sprintf("before %d", i))
				if err := add(p); err != nil {
					return err
				}
			}
			x.Warn("after all")
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for i, p := range paths {
			want = append(want, fmt.Sprintf("before %d", i), p+":2: malformed line skipped")
		}
		want = append(want, "after all")
		if len(got) != len(want) {
			t.Fatalf("%s: warnings %q, want %q", kind, got, want)
		}
		for i := range got {
			if !strings.HasPrefix(got[i], want[i]) {
				t.Errorf("%s: warning %d is %q, want %q...", kind, i, got[i], want[i])
			}
		}
	}
}
