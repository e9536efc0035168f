package jq

import (
	"slices"
	"strings"

	"github.com/itchyny/gojq"
)

// Paths returns the paths of its input an expression reads by name:
// ".tool_input.content // empty" reads ["tool_input"] and ["tool_input",
// "content"]; "has(\"prompt\")" reads ["prompt"]; an iteration or a
// computed index is the segment "[]". It follows pipes, parentheses,
// variables bound to a path ($x), select, map, any, all, first, try and
// the branches of if, and stops at what it cannot follow (a path built at
// run time, a function defined in the expression, the accumulator of
// reduce): those reads are left out, never guessed. Each path is listed
// once, in the order the expression first reads it. cc-hook lint checks
// them against the fields a hook payload can have.
func Paths(expr string) ([][]string, error) {
	if err := checkSource(expr); err != nil {
		return nil, err
	}
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, &CompileError{Expr: expr, Msg: err.Error(), Offset: -1}
	}
	return paths(q), nil
}

// Paths is Paths of the compiled expression, without parsing it again.
func (f *Filter) Paths() [][]string { return paths(f.query) }

func paths(q *gojq.Query) [][]string {
	w := &pathWalker{}
	w.query(q, root, nil)
	return w.paths
}

// path is where a value sits in the input; nil when it is not a part of
// the input (a computed value, or one the walker cannot follow).
type path []string

// root is the input itself: a path of no segments, but not nil.
var root = path{}

func (p path) with(seg string) path {
	if p == nil {
		return nil
	}
	return append(slices.Clip(p), seg)
}

// vars maps variable names to the paths they were bound to.
type vars map[string]path

func (v vars) bind(name string, p path) vars {
	out := make(vars, len(v)+1)
	for k, x := range v {
		out[k] = x
	}
	out[name] = p
	return out
}

type pathWalker struct {
	paths [][]string
}

func (w *pathWalker) read(p path) {
	if len(p) == 0 {
		return
	}
	for _, q := range w.paths {
		if slices.Equal(q, p) {
			return
		}
	}
	w.paths = append(w.paths, slices.Clone(p))
}

// query walks q with its input at in and returns the path of its output.
func (w *pathWalker) query(q *gojq.Query, in path, env vars) path {
	if q == nil {
		return nil
	}
	for _, fd := range q.FuncDefs {
		// A function's body reads its caller's input, unknown here.
		w.query(fd.Body, nil, env)
	}
	if q.Term != nil {
		return w.term(q.Term, in, env)
	}
	if q.Left == nil || q.Right == nil {
		return nil
	}
	left := w.query(q.Left, in, env)
	if q.Op == gojq.OpPipe {
		if len(q.Patterns) > 0 {
			// E as $x | body: body reads the same input, $x is E.
			for _, p := range q.Patterns {
				env = w.pattern(p, left, env)
			}
			return w.query(q.Right, in, env)
		}
		return w.query(q.Right, left, env)
	}
	w.query(q.Right, in, env)
	return nil
}

// pattern binds the variables of a destructuring pattern.
func (w *pathWalker) pattern(p *gojq.Pattern, at path, env vars) vars {
	if p.Name != "" {
		return env.bind(p.Name, at)
	}
	for _, e := range p.Array {
		env = w.pattern(e, at.with("[]"), env)
	}
	for _, o := range p.Object {
		key := o.Key
		if o.KeyString != nil && len(o.KeyString.Queries) == 0 {
			key = o.KeyString.Str
		}
		sub := path(nil)
		switch {
		case strings.HasPrefix(key, "$"):
			// {$name}: binds $name to .name
			sub = at.with(key[1:])
			w.read(sub)
			env = env.bind(key, sub)
		case key != "":
			sub = at.with(key)
			w.read(sub)
		default:
			w.query(o.KeyQuery, nil, env)
		}
		if o.Val != nil {
			env = w.pattern(o.Val, sub, env)
		}
	}
	return env
}

func (w *pathWalker) term(t *gojq.Term, in path, env vars) path {
	var p path
	switch t.Type {
	case gojq.TermTypeIdentity:
		p = in
	case gojq.TermTypeIndex:
		p = w.index(t.Index, in, in, env)
	case gojq.TermTypeFunc:
		p = w.fn(t.Func, in, env)
	case gojq.TermTypeObject:
		for _, kv := range t.Object.KeyVals {
			w.query(kv.KeyQuery, in, env)
			if kv.KeyString != nil {
				w.str(kv.KeyString, in, env)
			}
			if kv.Val != nil {
				w.query(kv.Val, in, env)
			} else if kv.Key != "" && !strings.HasPrefix(kv.Key, "$") {
				w.read(in.with(kv.Key)) // {foo} is {foo: .foo}
			}
		}
	case gojq.TermTypeArray:
		w.query(t.Array.Query, in, env)
	case gojq.TermTypeUnary:
		w.term(t.Unary.Term, in, env)
	case gojq.TermTypeString:
		w.str(t.Str, in, env)
	case gojq.TermTypeIf:
		w.query(t.If.Cond, in, env)
		w.query(t.If.Then, in, env)
		for _, e := range t.If.Elif {
			w.query(e.Cond, in, env)
			w.query(e.Then, in, env)
		}
		w.query(t.If.Else, in, env)
	case gojq.TermTypeTry:
		p = w.query(t.Try.Body, in, env)
		w.query(t.Try.Catch, nil, env)
	case gojq.TermTypeReduce:
		src := w.query(t.Reduce.Query, in, env)
		for _, pt := range t.Reduce.Patterns {
			env = w.pattern(pt, src, env)
		}
		w.query(t.Reduce.Start, in, env)
		w.query(t.Reduce.Update, nil, env)
	case gojq.TermTypeForeach:
		src := w.query(t.Foreach.Query, in, env)
		for _, pt := range t.Foreach.Patterns {
			env = w.pattern(pt, src, env)
		}
		w.query(t.Foreach.Start, in, env)
		w.query(t.Foreach.Update, nil, env)
		w.query(t.Foreach.Extract, nil, env)
	case gojq.TermTypeLabel:
		p = w.query(t.Label.Body, in, env)
	case gojq.TermTypeQuery:
		p = w.query(t.Query, in, env)
	}
	for _, s := range t.SuffixList {
		switch {
		case s.Index != nil:
			p = w.index(s.Index, p, in, env)
		case s.Iter:
			p = p.with("[]")
			w.read(p)
		}
	}
	return p
}

// index applies .name, .["name"], .[expr] or a slice to the value at p;
// the index expressions read the term's input, in.
func (w *pathWalker) index(x *gojq.Index, p, in path, env vars) path {
	switch {
	case x.Name != "":
		p = p.with(x.Name)
	case x.Str != nil && len(x.Str.Queries) == 0:
		p = p.with(x.Str.Str)
	case x.Str != nil:
		w.str(x.Str, in, env)
		p = nil
	case x.IsSlice:
		w.query(x.Start, in, env)
		w.query(x.End, in, env)
		return p
	default:
		if s := constString(x.Start); s != nil {
			p = p.with(*s)
		} else {
			w.query(x.Start, in, env)
			p = p.with("[]")
		}
	}
	w.read(p)
	return p
}

func (w *pathWalker) str(s *gojq.String, in path, env vars) {
	for _, q := range s.Queries {
		w.query(q, in, env)
	}
}

// constString is the value of a query that is a plain string literal.
func constString(q *gojq.Query) *string {
	if q == nil || q.Term == nil || q.Term.Type != gojq.TermTypeString || len(q.Term.SuffixList) > 0 ||
		q.Term.Str == nil || len(q.Term.Str.Queries) > 0 {
		return nil
	}
	return &q.Term.Str.Str
}

// fn follows the builtins whose output or arguments stay on the input's
// paths; any other function's arguments are walked with the same input.
func (w *pathWalker) fn(f *gojq.Func, in path, env vars) path {
	if strings.HasPrefix(f.Name, "$") {
		if p, ok := env[f.Name]; ok {
			return p
		}
		return nil
	}
	switch n := len(f.Args); {
	case f.Name == "select" && n == 1, f.Name == "recurse" && n == 0,
		(f.Name == "values" || f.Name == "nulls" || f.Name == "booleans" || f.Name == "numbers" ||
			f.Name == "strings" || f.Name == "arrays" || f.Name == "objects" || f.Name == "iterables" ||
			f.Name == "scalars") && n == 0:
		for _, a := range f.Args {
			w.query(a, in, env)
		}
		return in
	case f.Name == "has" && n == 1:
		if s := constString(f.Args[0]); s != nil {
			w.read(in.with(*s))
			return nil
		}
	case (f.Name == "map" || f.Name == "map_values" || f.Name == "any" || f.Name == "all") && n == 1:
		w.query(f.Args[0], in.with("[]"), env)
		return nil
	case (f.Name == "any" || f.Name == "all") && n == 2:
		src := w.query(f.Args[0], in, env)
		w.query(f.Args[1], src, env)
		return nil
	case (f.Name == "first" || f.Name == "last") && n == 1:
		return w.query(f.Args[0], in, env)
	case f.Name == "first" && n == 0, f.Name == "last" && n == 0:
		p := in.with("[]")
		w.read(p)
		return p
	case f.Name == "limit" && n == 2:
		w.query(f.Args[0], in, env)
		return w.query(f.Args[1], in, env)
	}
	for _, a := range f.Args {
		w.query(a, in, env)
	}
	return nil
}
