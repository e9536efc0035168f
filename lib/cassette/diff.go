package cassette

import (
	"sort"
	"strconv"
	"strings"
)

// StepRef describes one side's step at the divergence.
type StepRef struct {
	Type    string `json:"type"`
	Hash    string `json:"hash"`
	Summary string `json:"summary"`
}

// Divergence is where two cassettes first differ.
type Divergence struct {
	Index int `json:"index"`
	// Path is the first differing field inside the step (Blackbox's
	// firstDifference paths: "payload.result.available", "timestamp",
	// "type"); empty when one side has no step there.
	Path    string   `json:"path,omitempty"`
	Summary string   `json:"summary"`
	Parent  *StepRef `json:"parent"`
	Child   *StepRef `json:"child"`
	// Field is the payload's salient field both sides have (result,
	// toolInput, calls or text), when they share one.
	Field string `json:"changed_field,omitempty"`
}

// OutcomeDiff is Blackbox's outcome comparison (spec 4.3).
type OutcomeDiff struct {
	ParentStatus           string   `json:"parent_status"`
	ChildStatus            string   `json:"child_status"`
	StatusChanged          bool     `json:"status_changed"`
	FinalAnswerChanged     bool     `json:"final_answer_changed"`
	ToolSequenceChanged    bool     `json:"tool_sequence_changed"`
	ParentTools            []string `json:"parent_tools"`
	ChildTools             []string `json:"child_tools"`
	BehaviorallyEquivalent bool     `json:"behaviorally_equivalent"`
	Verdict                string   `json:"verdict"`
}

// DiffResult is the comparison of two cassettes (spec 4).
type DiffResult struct {
	Same                 bool        `json:"same"`
	Semantic             bool        `json:"semantic"`
	ParentID             string      `json:"parent_id"`
	ChildID              string      `json:"child_id"`
	ParentSteps          int         `json:"parent_steps"`
	ChildSteps           int         `json:"child_steps"`
	SharedPrefixLength   int         `json:"shared_prefix_length"`
	FirstDivergence      *Divergence `json:"first_divergence"`
	ParentIsStrictPrefix bool        `json:"parent_is_strict_prefix"`
	ChildIsStrictPrefix  bool        `json:"child_is_strict_prefix"`
	Outcome              OutcomeDiff `json:"outcome"`
}

// Diff compares parent and child. By hash (the default) steps match when
// their stored hashes are equal; semantic compares type and canonical
// payload only, for two separate recordings. Both should have passed the
// chain check first.
func Diff(parent, child Cassette, semantic bool) DiffResult {
	d := NewDiffer(parent.Header, child.Header, semantic)
	for i := 0; i < max(len(parent.Steps), len(child.Steps)); i++ {
		var a, b *Value
		if i < len(parent.Steps) {
			a = &parent.Steps[i]
		}
		if i < len(child.Steps) {
			b = &child.Steps[i]
		}
		d.Steps(a, b)
	}
	return d.Result()
}

// A Differ is Diff over the two cassettes' steps handed in a pair at a
// time, so that two cassettes of any length are compared holding one
// step of each (cc-cassette diff streams them).
type Differ struct {
	semantic       bool
	r              DiffResult
	pLast, cLast   Value
	pTools, cTools []string
}

// NewDiffer starts a comparison of the cassettes with these headers.
func NewDiffer(parentHeader, child Value, semantic bool) *Differ {
	pid, _ := parentHeader.GetString("id")
	cid, _ := child.GetString("id")
	return &Differ{semantic: semantic, r: DiffResult{Semantic: semantic, ParentID: pid, ChildID: cid}, pTools: []string{}, cTools: []string{}}
}

// Steps takes the next step of each side; nil when that side has ended.
func (d *Differ) Steps(parent, child *Value) {
	r := &d.r
	i := r.ParentSteps
	if child != nil {
		i = r.ChildSteps
	}
	if r.FirstDivergence == nil && parent != nil && child != nil && stepsMatch(*parent, *child, d.semantic) {
		r.SharedPrefixLength++
	} else if r.FirstDivergence == nil && (parent != nil || child != nil) {
		r.FirstDivergence = divergence(parent, child, i, d.semantic)
		r.ParentIsStrictPrefix = parent == nil
		r.ChildIsStrictPrefix = child == nil
	}
	if parent != nil {
		r.ParentSteps++
		d.pLast = *parent
		if t, ok := ToolName(*parent); ok {
			d.pTools = append(d.pTools, t)
		}
	}
	if child != nil {
		r.ChildSteps++
		d.cLast = *child
		if t, ok := ToolName(*child); ok {
			d.cTools = append(d.cTools, t)
		}
	}
}

// Result is the comparison once both sides have ended.
func (d *Differ) Result() DiffResult {
	r := d.r
	var pl, cl *Value
	if r.ParentSteps > 0 {
		pl = &d.pLast
	}
	if r.ChildSteps > 0 {
		cl = &d.cLast
	}
	r.Outcome = compareOutcomes(OutcomeOf(pl), OutcomeOf(cl), d.pTools, d.cTools)
	r.Same = r.FirstDivergence == nil
	return r
}

func stepsMatch(a, b Value, semantic bool) bool {
	if !semantic {
		ha, ok1 := a.GetString("hash")
		hb, ok2 := b.GetString("hash")
		return ok1 && ok2 && ha == hb
	}
	ta, _ := a.GetString("type")
	tb, _ := b.GetString("type")
	if ta != tb {
		return false
	}
	pa, _ := a.Get("payload")
	pb, _ := b.Get("payload")
	return Equal(pa, pb)
}

func ref(s *Value) *StepRef {
	if s == nil {
		return nil
	}
	t, _ := s.GetString("type")
	h, _ := s.GetString("hash")
	return &StepRef{Type: t, Hash: h, Summary: Summary(*s)}
}

func divergence(parent, child *Value, i int, semantic bool) *Divergence {
	d := &Divergence{Index: i, Parent: ref(parent), Child: ref(child)}
	is := strconv.Itoa(i)
	switch {
	case d.Parent == nil:
		d.Summary = "parent ended before child at index " + is
		return d
	case d.Child == nil:
		d.Summary = "child ended before parent at index " + is
		return d
	case d.Parent.Type == d.Child.Type:
		d.Summary = d.Parent.Type + " differs at index " + is
	default:
		d.Summary = d.Parent.Type + " vs " + d.Child.Type + " at index " + is
	}
	a, b := *parent, *child
	fields := []string{"type", "payload"}
	if !semantic {
		fields = []string{"index", "payload", "prevHash", "timestamp", "type"}
	}
	for _, f := range fields {
		va, oka := a.Get(f)
		vb, okb := b.Get(f)
		if p, differ := FirstDifference(va, oka, vb, okb, f); differ {
			d.Path = p
			break
		}
	}
	pa, _ := a.Get("payload")
	pb, _ := b.Get("payload")
	for _, f := range []string{"result", "toolInput", "calls", "text"} {
		if pa.Has(f) || pb.Has(f) {
			if pa.Has(f) && pb.Has(f) {
				d.Field = f
			}
			break
		}
	}
	return d
}

// FirstDifference returns the path of the first difference between two
// values (Blackbox's firstDifference, spec 8.2): arrays item by item,
// objects by the union of their keys in UTF-16 order, else the path
// itself. has* report whether each side exists.
func FirstDifference(a Value, hasA bool, b Value, hasB bool, path string) (string, bool) {
	if hasA && hasB && Equal(a, b) {
		return "", false
	}
	if hasA && hasB && a.kind == Array && b.kind == Array {
		for i := 0; i < max(len(a.arr), len(b.arr)); i++ {
			var x, y Value
			if i < len(a.arr) {
				x = a.arr[i]
			}
			if i < len(b.arr) {
				y = b.arr[i]
			}
			if p, ok := FirstDifference(x, i < len(a.arr), y, i < len(b.arr), path+"["+strconv.Itoa(i)+"]"); ok {
				return p, true
			}
		}
	}
	if hasA && hasB && a.kind == Object && b.kind == Object {
		var keys []string
		seen := map[string]bool{}
		for _, m := range append(append([]Member(nil), a.obj...), b.obj...) {
			if !seen[m.Key] {
				seen[m.Key] = true
				keys = append(keys, m.Key)
			}
		}
		sort.Slice(keys, func(i, j int) bool { return keyLess(keys[i], keys[j]) })
		for _, k := range keys {
			x, okx := a.Get(k)
			y, oky := b.Get(k)
			sub := k
			if path != "" {
				sub = path + "." + k
			}
			if p, ok := FirstDifference(x, okx, y, oky, sub); ok {
				return p, true
			}
		}
	}
	if path == "" {
		path = "(root)"
	}
	return path, true
}

// ToolSequence is the toolName of every tool_call step, in order.
func ToolSequence(c Cassette) []string {
	tools := []string{}
	for _, s := range c.Steps {
		if name, ok := ToolName(s); ok {
			tools = append(tools, name)
		}
	}
	return tools
}

// OutcomeOfCassette is OutcomeOf the cassette's last step.
func OutcomeOfCassette(c Cassette) Outcome {
	if len(c.Steps) == 0 {
		return OutcomeOf(nil)
	}
	return OutcomeOf(&c.Steps[len(c.Steps)-1])
}

// CompareOutcomes is the outcome comparison of spec 4.3.
func CompareOutcomes(parent, child Cassette) OutcomeDiff {
	return compareOutcomes(OutcomeOfCassette(parent), OutcomeOfCassette(child), ToolSequence(parent), ToolSequence(child))
}

func compareOutcomes(po, co Outcome, pTools, cTools []string) OutcomeDiff {
	d := OutcomeDiff{ParentStatus: po.Status, ChildStatus: co.Status, ParentTools: pTools, ChildTools: cTools}
	d.StatusChanged = po.Status != co.Status
	pa, pok := po.Answer()
	ca, cok := co.Answer()
	d.FinalAnswerChanged = pok != cok || pa != ca
	d.ToolSequenceChanged = strings.Join(d.ParentTools, "\x00") != strings.Join(d.ChildTools, "\x00") || len(d.ParentTools) != len(d.ChildTools)
	d.BehaviorallyEquivalent = !d.StatusChanged && !d.FinalAnswerChanged && !d.ToolSequenceChanged
	switch {
	case d.StatusChanged:
		d.Verdict = "outcome flipped: parent " + po.Status + " → child " + co.Status
	case d.FinalAnswerChanged && po.Status == StatusError:
		d.Verdict = "same final status (error), but the failure reason changed"
	case d.FinalAnswerChanged:
		d.Verdict = "same final status (" + po.Status + "), but the final answer changed"
	case d.ToolSequenceChanged:
		d.Verdict = "same outcome, but the tool-call path changed"
	default:
		d.Verdict = "no behavioral change: the divergence did not alter the run outcome"
	}
	return d
}
