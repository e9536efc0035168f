package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"

	"github.com/ccpipe/ccpipe/bench/corpus"
)

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "config dir to create (must not exist or be empty)")
	size := fs.String("size", "2GB", "approximate bytes under projects/ (KB, MB, GB are powers of 1024)")
	sessions := fs.Int("sessions", 2000, "number of main transcripts")
	seed := fs.Uint64("seed", 1, "seed; the same seed and flags give the same bytes")
	huge := fs.String("huge-line", "300MB", "size of the one huge line; 0 for none")
	giants := fs.Int("giants", corpus.DefaultGiants, "transcripts of -giant-frac of -size each; 0 for none")
	giantFrac := fs.Float64("giant-frac", corpus.DefaultGiantFrac, "share of -size per giant transcript")
	zst := fs.Float64("zst", 0, "share of main transcripts written as .jsonl.zst only (0..1)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "parallel writers")
	vocab := fs.String("vocab", "code", "the text's words: code (English prose and code), short (short common words; German, Polish, Albanian) or zipf (200000 identifiers, paths, error codes and non-ASCII words drawn by a Zipf law)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "gen: usage: gen -out DIR [-size 2GB] [-sessions 2000] [-seed 1] [-huge-line 300MB] [-zst 0.1] [-vocab code|short|zipf]")
		return 2
	}
	o := corpus.Options{Out: *out, Sessions: *sessions, Seed: *seed, GiantFrac: *giantFrac, Zst: *zst, Workers: *workers, Giants: *giants, Vocab: *vocab}
	var err error
	if o.Size, err = corpus.ParseSize(*size); err != nil {
		fmt.Fprintf(stderr, "gen: -size: %v\n", err)
		return 2
	}
	if o.HugeLine, err = corpus.ParseSize(*huge); err != nil {
		fmt.Fprintf(stderr, "gen: -huge-line: %v\n", err)
		return 2
	}
	if o.HugeLine == 0 {
		o.HugeLine = -1
	}
	if o.Giants == 0 {
		o.Giants = -1
	}
	m, err := corpus.Generate(ctx, o)
	if err != nil {
		fmt.Fprintf(stderr, "gen: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s: %d sessions, %d files, %.1f MB in %s\n", *out, len(m.Sessions), m.Files, float64(m.Bytes)/(1<<20), m.Elapsed)
	return 0
}
