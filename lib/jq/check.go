package jq

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// MaxDepth bounds how deep an expression nests (parentheses, brackets,
// braces, string interpolations): checked on the text before gojq parses
// it, whose parser and compiler recurse once per level, so that 700,000
// nested parentheses are a compile error and not a stack overflow (a
// crash with exit 2, which Claude Code reads as a block from cc-hook).
const MaxDepth = 256

// regexFuncs are jq's builtins whose first argument is a regular
// expression (split only with a second argument, the flags).
var regexFuncs = map[string]bool{"test": true, "match": true, "capture": true, "scan": true,
	"splits": true, "sub": true, "gsub": true, "split": true}

// checkSource checks what gojq leaves to run time or cannot bound: the
// nesting depth, and each regular expression written as a string literal
// (`test("[a-")` would fail on every input; here it fails at compile).
func checkSource(expr string) error {
	type mode struct {
		str   bool // inside a string literal
		depth int  // open brackets in this code frame
	}
	stack := []mode{{}}
	depth := 0
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		top := &stack[len(stack)-1]
		if top.str {
			switch c {
			case '\\':
				if i+1 < len(expr) && expr[i+1] == '(' {
					i++
					depth++
					if depth > MaxDepth {
						return deepError(expr, i)
					}
					stack = append(stack, mode{depth: 1})
					continue
				}
				i++
			case '"':
				stack = stack[:len(stack)-1]
			}
			continue
		}
		switch c {
		case '#':
			for i < len(expr) && expr[i] != '\n' {
				i++
			}
		case '"':
			stack = append(stack, mode{str: true})
		case '(', '[', '{':
			top.depth++
			depth++
			if depth > MaxDepth {
				return deepError(expr, i)
			}
		case ')', ']', '}':
			if top.depth > 0 {
				top.depth--
				depth--
			}
			if top.depth == 0 && len(stack) > 1 && c == ')' {
				stack = stack[:len(stack)-1] // the end of an interpolation
			}
		default:
			if isIdentStart(c) && (i == 0 || !isIdentByte(expr[i-1]) && expr[i-1] != '$' && expr[i-1] != '.') {
				j := i
				for j < len(expr) && isIdentByte(expr[j]) {
					j++
				}
				if regexFuncs[expr[i:j]] {
					if err := checkRegexArg(expr, expr[i:j], j); err != nil {
						return err
					}
				}
				i = j - 1
			}
		}
	}
	return nil
}

func deepError(expr string, at int) error {
	// The 40 bytes before the limit, not the whole expression again.
	from := max(0, at-40)
	return &CompileError{Expr: expr[from : at+1], Msg: fmt.Sprintf("nested deeper than %d levels", MaxDepth), Offset: at - from}
}

// checkRegexArg compiles the regular expression of a call of name at
// expr[from:] when it is a string literal without interpolation.
func checkRegexArg(expr, name string, from int) error {
	i := skipSpace(expr, from)
	if i >= len(expr) || expr[i] != '(' {
		return nil
	}
	re, end, ok := literal(expr, skipSpace(expr, i+1))
	if !ok {
		return nil
	}
	j := skipSpace(expr, end)
	if j >= len(expr) || expr[j] != ')' && expr[j] != ';' {
		return nil
	}
	if expr[j] == ')' && name == "split" {
		return nil // split/1 splits on a string, not an expression
	}
	if expr[j] == ';' {
		flags, _, ok := literal(expr, skipSpace(expr, j+1))
		if ok && strings.Contains(flags, "x") {
			return nil // extended: gojq strips white space and comments first
		}
	}
	if _, err := regexp.Compile(re); err != nil {
		return &CompileError{Expr: expr, Msg: fmt.Sprintf("%s: invalid regular expression: %v", name, err), Offset: skipSpace(expr, i+1)}
	}
	return nil
}

// literal reads a string literal without interpolation at expr[i:].
func literal(expr string, i int) (string, int, bool) {
	if i >= len(expr) || expr[i] != '"' {
		return "", i, false
	}
	for j := i + 1; j < len(expr); j++ {
		switch expr[j] {
		case '\\':
			if j+1 < len(expr) && expr[j+1] == '(' {
				return "", i, false
			}
			j++
		case '"':
			var s string
			if json.Unmarshal([]byte(expr[i:j+1]), &s) != nil {
				return "", i, false
			}
			return s, j + 1, true
		}
	}
	return "", i, false
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isIdentByte(c byte) bool { return isIdentStart(c) || '0' <= c && c <= '9' }
