package rules

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ccpipe/ccpipe/lib/hooks"
	"github.com/ccpipe/ccpipe/lib/regular"
	"github.com/ccpipe/ccpipe/lib/spell"
)

// Case is one test case of a rule file: a payload and what the file must
// answer.
type Case struct {
	Name    string
	Line    int
	Payload json.RawMessage
	// Decision is the expected decision: a rule's decision (deny, block,
	// ...), "context" for a rule that only adds context or a message, or
	// "none" for no opinion.
	Decision string
	// Rule, when set, is the name of the rule that must answer.
	Rule string
}

// caseDoc is a case as written, in YAML or NDJSON.
type caseDoc struct {
	Name     string `yaml:"name" json:"name"`
	Payload  any    `yaml:"payload" json:"payload"`
	Decision string `yaml:"decision" json:"decision"`
	Rule     string `yaml:"rule" json:"rule"`
}

// caseKeys are the keys of a case; another is an error, so a misspelt
// expectation never passes unchecked.
var caseKeys = []string{"name", "payload", "decision", "rule"}

// LoadCasesFile reads a case file: YAML (a top-level "cases:" list) or
// NDJSON (one case object per line), told by its first character.
func LoadCasesFile(path string) ([]Case, error) {
	data, err := regular.ReadFile(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("reading cases: %w", err)
	}
	cs, err := LoadCases(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cs, nil
}

// LoadCases parses cases; every case needs a payload object with a
// hook_event_name and a decision.
func LoadCases(data []byte) ([]Case, error) {
	var docs []caseDoc
	var lines []int
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, MaxFileSize)
		for n := 1; sc.Scan(); n++ {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			var d caseDoc
			dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
			dec.UseNumber()
			dec.DisallowUnknownFields()
			if err := dec.Decode(&d); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			docs, lines = append(docs, d), append(lines, n)
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
	} else {
		var doc struct {
			Cases []yaml.Node `yaml:"cases"`
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("invalid case file: %w", err)
		}
		for i := range doc.Cases {
			var d caseDoc
			n := &doc.Cases[i]
			for j := 0; n.Kind == yaml.MappingNode && j+1 < len(n.Content); j += 2 {
				if k := n.Content[j].Value; !slices.Contains(caseKeys, k) {
					if s := spell.Suggest(k, caseKeys); s != "" {
						return nil, fmt.Errorf("case at line %d: unknown key %q; did you mean %s?", n.Line, k, s)
					}
					return nil, fmt.Errorf("case at line %d: unknown key %q (want one of %s)", n.Line, k, strings.Join(caseKeys, ", "))
				}
			}
			if err := n.Decode(&d); err != nil {
				return nil, fmt.Errorf("case at line %d: %s", doc.Cases[i].Line, strings.TrimPrefix(err.Error(), "yaml: "))
			}
			docs, lines = append(docs, d), append(lines, doc.Cases[i].Line)
		}
	}
	if len(docs) == 0 {
		return nil, errors.New("no cases (want a top-level \"cases:\" list, or one JSON case per line)")
	}
	out := make([]Case, len(docs))
	for i, d := range docs {
		c := Case{Name: d.Name, Line: lines[i], Decision: d.Decision, Rule: d.Rule}
		label := c.Label()
		obj, ok := d.Payload.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: payload must be an object", label)
		}
		p, err := json.Marshal(obj)
		if err != nil {
			return nil, fmt.Errorf("%s: payload: %w", label, err)
		}
		if _, err := hooks.Parse(p); err != nil {
			return nil, fmt.Errorf("%s: payload: %w", label, err)
		}
		if c.Decision == "" {
			return nil, fmt.Errorf("%s: no decision (want a rule's decision, context or none)", label)
		}
		c.Payload = p
		out[i] = c
	}
	return out, nil
}

// Label names the case in messages: its name, else its line.
func (c Case) Label() string {
	if c.Name != "" {
		return fmt.Sprintf("case %q", c.Name)
	}
	return fmt.Sprintf("case at line %d", c.Line)
}

// Outcome is what a rule file answered to a case.
type Outcome struct {
	// Decision is the answering rule's decision, "context" when it only
	// adds context or a message, "none" when no rule answered, "error"
	// when the file failed on the payload.
	Decision string
	Rule     string // the answering rule's name, else "line N"; "" for none
	Reason   string // the reason, or the error
}

// Test runs one case.
func (f *File) Test(ctx context.Context, c Case) Outcome {
	ev, err := hooks.Parse(c.Payload)
	if err != nil {
		return Outcome{Decision: "error", Reason: err.Error()}
	}
	m, err := f.Eval(ctx, ev, c.Payload)
	switch {
	case err != nil:
		return Outcome{Decision: "error", Reason: err.Error()}
	case m == nil:
		return Outcome{Decision: "none"}
	}
	o := Outcome{Decision: m.Rule.Decision, Rule: m.Rule.Name, Reason: m.Reason}
	if o.Decision == "" {
		o.Decision = "context"
	}
	if o.Rule == "" {
		o.Rule = fmt.Sprintf("line %d", m.Rule.line)
	}
	return o
}

// Passes reports whether the outcome is what the case expects.
func (c Case) Passes(o Outcome) bool {
	return o.Decision == c.Decision && (c.Rule == "" || c.Rule == o.Rule)
}
