package proxy

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ccpipe/ccpipe/lib/cassette"
)

// Load turns a cassette into the steps a replay or fork serves. The chain
// must be intact: replaying a tampered cassette would make a run "pass"
// against content nobody recorded.
func Load(c cassette.Cassette) ([]Step, error) {
	if v, ok := c.Header.Get("version"); !ok || !cassette.Equal(v, cassette.IntValue(cassette.Version)) {
		return nil, fmt.Errorf("the cassette is not version %d", cassette.Version)
	}
	steps := make([]Step, 0, len(c.Steps))
	prev := ""
	var scratch []byte
	for i, v := range c.Steps {
		st, err := cassette.DecodeStep(v)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
		h, err := cassette.HashStep(v, &scratch)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
		if st.Index != i || st.PrevHash != prev || h != st.Hash {
			return nil, fmt.Errorf("step %d: the hash chain is broken (run cc-cassette verify)", i)
		}
		prev = st.Hash
		steps = append(steps, Step{Type: st.Type, Timestamp: st.Timestamp, Payload: cassette.ToAny(st.Payload)})
	}
	return steps, nil
}

// Build hashes steps into a cassette with the given header. For a fork,
// parent holds the parent cassette and the first prefix steps are copied
// from it verbatim (index, timestamp, payload, prevHash and hash kept).
func Build(h cassette.Header, steps []Step, parent *cassette.Cassette, prefix int) (cassette.Cassette, error) {
	rec := cassette.NewRecorder(h.ID)
	out := cassette.Cassette{Header: h.Value()}
	for i, st := range steps {
		var s cassette.Step
		var err error
		if i < prefix {
			var ps cassette.Step
			if ps, err = cassette.DecodeStep(parent.Steps[i]); err == nil {
				s, err = rec.Copy(ps)
			}
		} else {
			var p cassette.Value
			if p, err = cassette.FromAny(st.Payload); err == nil {
				s, err = rec.Append(st.Type, st.Timestamp, p)
			}
		}
		if err != nil {
			return out, fmt.Errorf("step %d: %w", i, err)
		}
		out.Steps = append(out.Steps, s.Value())
	}
	return out, nil
}

// Encode writes c in the NDJSON form and refuses one that holds any of
// keys (the credentials the client sent, the parent's API keys).
func Encode(c cassette.Cassette, keys []string) ([]byte, error) {
	var b bytes.Buffer
	w := cassette.NewWriter(&b)
	if err := w.WriteCassette(c); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	for _, k := range keys {
		if k = strings.TrimSpace(k); len(k) >= 4 && k != OfflineKey && bytes.Contains(b.Bytes(), []byte(k)) {
			return nil, fmt.Errorf("refusing to write the cassette: it contains your API key")
		}
	}
	return b.Bytes(), nil
}
