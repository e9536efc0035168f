// Package jq compiles a jq expression once and applies it to records, the
// way every cc-* command's --jq flag does. It wraps gojq with the choices
// that matter for a pipe of Claude Code records: numbers stay exact
// (json.Number in, json.Number out), the environment is not reachable
// (no $ENV, no env: a filter cannot print a credential), and `halt`
// stops quietly.
package jq

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/itchyny/gojq"
)

// Filter is a compiled expression, safe to reuse for every record.
type Filter struct {
	code   *gojq.Code
	values []any
	query  *gojq.Query // for Paths
}

// ErrHalt is returned by Run when the expression called halt or
// halt_error with a null value: the caller stops without an error.
var ErrHalt = errors.New("jq: halt")

// RuntimeError is an error the expression raised for one input (a type
// error, `error(...)`). jq reports it and goes on with the next input, and
// so do the cc-* commands; emit's own errors are returned as they are.
type RuntimeError struct{ Err error }

func (e *RuntimeError) Error() string { return "jq: " + e.Err.Error() }

func (e *RuntimeError) Unwrap() error { return e.Err }

// CompileError is a syntax or compile error, with the expression and a
// caret under the offending token when the position is known.
type CompileError struct {
	Expr   string
	Msg    string
	Offset int // byte offset of the error in Expr, -1 when unknown
}

func (e *CompileError) Error() string {
	if e.Offset < 0 {
		return "invalid jq expression: " + e.Msg
	}
	// Show the line holding the error and a caret under it.
	start := strings.LastIndexByte(e.Expr[:e.Offset], '\n') + 1
	end := strings.IndexByte(e.Expr[e.Offset:], '\n')
	if end < 0 {
		end = len(e.Expr)
	} else {
		end += e.Offset
	}
	col := len([]rune(e.Expr[start:e.Offset]))
	return fmt.Sprintf("invalid jq expression: %s\n    %s\n    %s^", e.Msg, e.Expr[start:end], strings.Repeat(" ", col))
}

// Compile parses and compiles expr. vars are bound as $NAME to string
// values, in order (jq's --arg).
func Compile(expr string, vars [][2]string) (*Filter, error) {
	if err := checkSource(expr); err != nil {
		return nil, err
	}
	q, err := gojq.Parse(expr)
	if err != nil {
		ce := &CompileError{Expr: expr, Msg: err.Error(), Offset: -1}
		var pe *gojq.ParseError
		if errors.As(err, &pe) {
			ce.Offset = min(max(pe.Offset-len(pe.Token), 0), len(expr))
		}
		return nil, ce
	}
	names := make([]string, len(vars))
	values := make([]any, len(vars))
	for i, v := range vars {
		names[i] = "$" + v[0]
		values[i] = v[1]
	}
	code, err := gojq.Compile(q, gojq.WithVariables(names))
	if err != nil {
		return nil, &CompileError{Expr: expr, Msg: err.Error(), Offset: -1}
	}
	return &Filter{code: code, values: values, query: q}, nil
}

// CompileVars compiles expr with the variables $NAME of names, each any
// plain JSON tree, null until SetVars gives their values.
func CompileVars(expr string, names ...string) (*Filter, error) {
	vars := make([][2]string, len(names))
	for i, n := range names {
		vars[i][0] = n
	}
	f, err := Compile(expr, vars)
	if err != nil {
		return nil, err
	}
	clear(f.values)
	return f, nil
}

// SetVars gives CompileVars' variables their values, in order, for the
// runs that follow.
func (f *Filter) SetVars(values ...any) { copy(f.values, values) }

// Run applies the filter to v (a plain JSON tree: map[string]any, []any,
// string, json.Number, bool, nil) and calls emit for each result.
func (f *Filter) Run(v any, emit func(any) error) error {
	return f.RunContext(context.Background(), v, emit)
}

// RunContext is Run stopped by ctx: gojq checks it at every step, so a
// runaway expression ends when ctx does, with ctx's cause as the error.
func (f *Filter) RunContext(ctx context.Context, v any, emit func(any) error) error {
	iter := f.code.RunWithContext(ctx, v, f.values...)
	for {
		r, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, ok := r.(error); ok {
			var he *gojq.HaltError
			if errors.As(err, &he) {
				if he.Value() == nil {
					return ErrHalt
				}
				// halt_error ends the program in jq: not a per-input error.
				return fmt.Errorf("jq: %w", err)
			}
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return context.Cause(ctx)
			}
			return &RuntimeError{Err: err}
		}
		if err := emit(r); err != nil {
			return err
		}
	}
}

// Decode turns one JSON document into the plain tree Run takes, keeping
// numbers exact.
func Decode(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// Marshal encodes a result as compact JSON the way jq prints it: <, > and
// & stay literal, numbers as they came.
func Marshal(v any) ([]byte, error) { return gojq.Marshal(v) }
