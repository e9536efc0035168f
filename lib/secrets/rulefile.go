package secrets

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// RuleFileFormat documents ParseRules' input, for help texts.
const RuleFileFormat = `A rule file holds one rule per line: a kind, white space, then a Go
regular expression (RE2 syntax) running to the end of the line. Blank
lines and lines starting with # are ignored. The kind ([a-z0-9], then
[a-z0-9._-]) is what findings report and what [REDACTED:<kind>] says. A
group named secret, (?P<secret>...), marks the part to replace; without
one the whole match is replaced. A pattern that starts with 3 or more
literal bytes is tried only where they occur (fast); any other pattern
runs over every string (slower). Example:
  # ACME deploy tokens
  acme-token     acme_[A-Za-z0-9]{32}
  corp-password  (?i)corp_pass=(?P<secret>\S{8,})`

var kindPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// ParseRules reads rules in RuleFileFormat. Errors name the line.
func ParseRules(r io.Reader, name string) ([]*Rule, error) {
	var rules []*Rule
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, expr, ok := strings.Cut(line, " ")
		if k, e, tab := strings.Cut(line, "\t"); tab && (!ok || len(k) < len(kind)) {
			kind, expr, ok = k, e, true
		}
		expr = strings.TrimSpace(expr)
		if !ok || expr == "" {
			return nil, fmt.Errorf("%s:%d: want a kind and a pattern", name, n)
		}
		if !kindPattern.MatchString(kind) {
			return nil, fmt.Errorf("%s:%d: kind %q: use [a-z0-9] then [a-z0-9._-]", name, n, kind)
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, n, err)
		}
		rule := &Rule{Kind: kind, Doc: fmt.Sprintf("%s:%d", name, n), Pattern: re}
		if prefix, _ := re.LiteralPrefix(); len(prefix) >= 3 {
			rule.Keywords = []string{prefix}
		}
		rules = append(rules, rule)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return rules, nil
}
