package cccassette

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/cli"
)

const convertHelp = `usage: cc-cassette convert [flags] [CASSETTE... | -]

Converts cassettes between the two forms. --to json writes Blackbox's
single-file form exactly as Blackbox writes it (JSON.stringify(trace,
null, 2): two-space indent, keys version, id, createdAt, steps, then
parentId and forkedFromStepId; no trailing newline), one cassette only.
--to ndjson (the default) writes the header line and one line per step,
compact, every cassette of the input in turn. Values are written as
JavaScript writes them (numbers in their shortest form, U+2028 raw), so
converting twice gives the same bytes, and hashes are unchanged (nothing
hashed is altered). The chain is not checked: convert a broken cassette
to look at it, verify it to trust it.

With --jq the filter runs on each output record: each line for ndjson,
the whole document for json.

Examples:
  $ cc-cassette convert --to json run.ndjson > run.json
  $ cc-cassette convert run.json | cc-cassette verify

Exit status: 0 ok, 1 the input could not be read, 2 usage error.`

func convertCommand() *cli.Command {
	var to string
	return &cli.Command{
		Name:     "convert",
		Short:    "between the NDJSON form and Blackbox's single JSON file",
		Synopsis: "cc-cassette convert [--to ndjson|json] [CASSETTE... | -]",
		Help:     convertHelp,
		SetFlags: func(f *cli.Flags) {
			f.Enum(&to, "to", "ndjson", "output `FORM`", []string{"ndjson", "json"})
		},
		Run: func(env *cli.Env, args []string) error {
			names, err := inputs(env, args, "cassette")
			if err != nil {
				return err
			}
			if to == "json" {
				if len(names) != 1 {
					return cli.Usagef("--to json writes one cassette; give one input")
				}
				c, err := loadOne(env, names[0])
				if err != nil {
					return err
				}
				if env.Out.Filtering() {
					return writeValue(env, c.Value())
				}
				// Written as it is made: indentation grows with the square
				// of the nesting depth.
				bw := bufio.NewWriterSize(env.Stdout, 64<<10)
				if err := cassette.WriteIndent(bw, c.Value()); err != nil {
					return fmt.Errorf("%s: %v", displayName(names[0]), err)
				}
				return bw.Flush()
			}
			for _, name := range names {
				r, err := open(env, name)
				if err != nil {
					return err
				}
				rd := cassette.NewReader(r)
				for {
					rec, err := rd.Next()
					if err != nil {
						r.Close()
						if errors.Is(err, io.EOF) || (errors.Is(err, cassette.ErrEmpty) && name == "-") {
							break
						}
						return fmt.Errorf("%s: %v", displayName(name), err)
					}
					if err := writeValue(env, rec.Value); err != nil {
						r.Close()
						if errors.Is(err, cassette.ErrNonFinite) {
							return fmt.Errorf("%s:%d: %v", displayName(name), rec.Line, err)
						}
						return err
					}
				}
			}
			return nil
		},
	}
}
