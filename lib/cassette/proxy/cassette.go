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
	v := &cassette.Verifier{}
	v.Header(c.Header)
	for _, st := range c.Steps {
		v.Step(st)
	}
	for _, inv := range v.Report().Invariants[:2] {
		if inv.Status == cassette.Fail {
			at := ""
			if inv.StepIndex != nil {
				at = fmt.Sprintf(" at step %d", *inv.StepIndex)
			}
			return nil, fmt.Errorf("the cassette fails %s%s: %s", inv.Name, at, inv.Detail)
		}
	}
	steps := make([]Step, 0, len(c.Steps))
	for i, v := range c.Steps {
		st, err := cassette.DecodeStep(v)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
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

// Encode writes c in the NDJSON form. Like Blackbox's recorder it
// refuses a cassette that fails verify (a provider id, a credential
// shape) or holds any of keys (the credentials the client sent, the
// parent's API keys); the message names the check, never the value.
func Encode(c cassette.Cassette, keys []string) ([]byte, error) {
	var lits []string
	for _, k := range keys {
		if k = strings.TrimSpace(k); len(k) >= 4 && k != OfflineKey {
			lits = append(lits, k)
		}
	}
	v := &cassette.Verifier{Keys: lits}
	v.Header(c.Header)
	for _, st := range c.Steps {
		v.Step(st)
	}
	if r := v.Report(); !r.Pass {
		if strings.Contains(r.FirstFailure.Detail, "<api-key-value>") {
			return nil, fmt.Errorf("refusing to write the cassette: it contains your API key")
		}
		return nil, fmt.Errorf("refusing to write the cassette: %s failed — %s", r.FirstFailure.Name, r.FirstFailure.Detail)
	}
	var b bytes.Buffer
	w := cassette.NewWriter(&b)
	if err := w.WriteCassette(c); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
