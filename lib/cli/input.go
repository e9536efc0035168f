package cli

import "github.com/ccpipe/ccpipe/lib/ndjson"

// EachInput reads NDJSON records from stdin and calls fn for each valid
// one. Skipped lines are reported on stderr with their position, one line
// each, so nothing is lost silently. It reads nothing when stdin is not
// input (a terminal, /dev/null).
func (e *Env) EachInput(fn func(line []byte, lineno int) error) (ndjson.Stats, error) {
	if !e.HasInput() {
		return ndjson.Stats{}, nil
	}
	return ndjson.Records(e.Stdin, func(p ndjson.Problem) {
		e.Warnf("<stdin>:%d: %v", p.Line, p.Err)
	}, fn)
}
