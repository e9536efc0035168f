package cccassette

import (
	"errors"
	"fmt"
	"io"

	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/cli"
)

// streamed is what a streaming pass keeps of one cassette: its header,
// step count, last step and tool sequence, never its steps.
type streamed struct {
	Header cassette.Value
	Steps  int
	Last   *cassette.Value
	Tools  []string
	v      *cassette.Verifier
}

// ID is the header's id.
func (s *streamed) ID() string { id, _ := s.Header.GetString("id"); return id }

// Outcome is the run's terminal status, from the last step.
func (s *streamed) Outcome() cassette.Outcome { return cassette.OutcomeOf(s.Last) }

// chain is checkChain for a streamed cassette: schema_version or
// hash_chain failed.
func (s *streamed) chain(name string) error {
	for _, inv := range s.v.Report().Invariants[:2] {
		if inv.Status == cassette.Fail {
			return fmt.Errorf("%s: %s failed%s: %s", displayName(name), inv.Name, inv.Where(), inv.Detail)
		}
	}
	return nil
}

// eachStreamed reads the cassettes of one input a step at a time (memory
// bounded by the largest step, whatever the cassette's length): step is
// called for each step, end once per cassette with what was kept. An
// empty pipe is no input.
func eachStreamed(env *cli.Env, name string, step func(c *streamed, i int, s cassette.Value) error, end func(c *streamed) error) error {
	r, err := open(env, name)
	if err != nil {
		return err
	}
	defer r.Close()
	rd := cassette.NewReader(r)
	var cur *streamed
	finish := func() error {
		if cur == nil {
			return nil
		}
		c := cur
		cur = nil
		return end(c)
	}
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return finish()
		}
		if errors.Is(err, cassette.ErrEmpty) && name == "-" {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %v", displayName(name), err)
		}
		if rec.Header {
			if err := finish(); err != nil {
				return err
			}
			cur = &streamed{Header: rec.Value, Tools: []string{}, v: &cassette.Verifier{}}
			cur.v.Header(rec.Value)
			continue
		}
		cur.v.Step(rec.Value)
		if t, ok := cassette.ToolName(rec.Value); ok {
			cur.Tools = append(cur.Tools, t)
		}
		if step != nil {
			if err := step(cur, cur.Steps, rec.Value); err != nil {
				return err
			}
		}
		last := rec.Value
		cur.Last = &last
		cur.Steps++
	}
}

// oneStream pulls the steps of an input holding exactly one cassette,
// checking its chain as it goes (diff reads two of them in lockstep).
type oneStream struct {
	name   string
	r      io.ReadCloser
	rd     *cassette.Reader
	header cassette.Value
	v      *cassette.Verifier
	done   bool
}

func openOne(env *cli.Env, name string) (*oneStream, error) {
	r, err := open(env, name)
	if err != nil {
		return nil, err
	}
	o := &oneStream{name: name, r: r, rd: cassette.NewReader(r), v: &cassette.Verifier{}}
	rec, err := o.rd.Next()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("%s: %v", displayName(name), err)
	}
	o.header = rec.Value
	o.v.Header(rec.Value)
	return o, nil
}

// next is the next step, nil at the end.
func (o *oneStream) next() (*cassette.Value, error) {
	if o.done {
		return nil, nil
	}
	rec, err := o.rd.Next()
	if errors.Is(err, io.EOF) {
		o.done = true
		s := streamed{v: o.v}
		return nil, s.chain(o.name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", displayName(o.name), err)
	}
	if rec.Header {
		return nil, fmt.Errorf("%s: holds more than one cassette; this command takes one", displayName(o.name))
	}
	o.v.Step(rec.Value)
	return &rec.Value, nil
}
