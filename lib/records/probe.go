package records

import (
	"bufio"
	"bytes"
	"io"
)

// MaxProbe bounds the lines Probe reads to find the first record: a stream
// of garbage must not be held whole.
const MaxProbe = 100

// Probe reads in's first lines up to the first one that is a JSON object
// and classifies it: the record that tells what a command's input is
// (session records or transcript entries). found is false when none of
// the first MaxProbe lines is one (or the input ends first). replay reads
// in again from its start: the probed lines, what was read beyond them,
// then in itself, in its own large reads.
func Probe(in io.Reader) (first Record, found bool, replay io.Reader) {
	br := bufio.NewReaderSize(in, 64<<10)
	var head []byte
	for probed := 0; !found && probed < MaxProbe; probed++ {
		line, err := br.ReadBytes('\n')
		head = append(head, line...)
		// Malformed lines are left for the reader of replay to report;
		// the first record decides.
		if t := bytes.TrimSpace(line); len(t) > 0 {
			var cerr error
			first, cerr = Classify(t)
			found = cerr == nil
		}
		if err != nil {
			break
		}
	}
	rest, _ := br.Peek(br.Buffered())
	return first, found, io.MultiReader(bytes.NewReader(head), bytes.NewReader(rest), in)
}
