package extract

import "github.com/ccpipe/ccpipe/lib/transcript"

// DecodeOwned is Decode of a line the caller hands over (it will not be
// reused: ndjson.Reader.Owned), decoded without a copy of its strings'
// bytes: a 200 MB line read from stdin is held once, not three times.
func (x *Extractor) DecodeOwned(line []byte) (*transcript.Entry, error) {
	return x.decode(&transcript.Line{Bytes: line, Owned: true})
}
