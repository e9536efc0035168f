package load

import (
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/pricing"
	"github.com/ccpipe/ccpipe/lib/records"
)

// FirstRecord probes stdin's first record (records.Probe), which tells a
// command reading sessions or entries which it was given, and leaves
// env.Stdin to read the whole input again.
func FirstRecord(env *cli.Env) (records.Record, bool) {
	first, found, replay := records.Probe(env.Stdin)
	env.Stdin = replay
	return first, found
}

// SessionRecords hands add the transcript of each stdin record that names
// one (records.Classify: a session record, a hook payload, a fact with a
// transcript_path), in order; any other line is skipped and counted.
func SessionRecords(env *cli.Env, add func(path string) error) error {
	_, err := env.EachInput(func(line []byte, n int) error {
		r, err := records.Classify(line)
		if err != nil || r.SessionPath() == "" {
			env.SkipInput(n, "no transcript_path, record skipped")
			return nil
		}
		return add(r.SessionPath())
	})
	return err
}

// EveryTranscript hands add the transcript of every session EverySession
// lists, in its order.
func EveryTranscript(env *cli.Env, sys cli.System, since time.Time, add func(path string) error) error {
	list, err := EverySession(env, sys, since)
	if err != nil {
		return err
	}
	for _, s := range list {
		if err := add(s.TranscriptPath); err != nil {
			return err
		}
	}
	return nil
}

// PriceTable is the table a run prices with: the built-in one with the
// --prices file's rows at path (Prices), else def (nil: no pricing).
func PriceTable(path string, def *pricing.Catalog) (*pricing.Catalog, error) {
	if path == "" {
		return def, nil
	}
	prices, _, err := Prices(path)
	return prices, err
}
