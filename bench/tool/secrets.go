package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ccpipe/ccpipe/lib/secrets"
)

// secretPatternsCmd prints cc-redact's default rules as ripgrep patterns
// (rg -f FILE), the peer's half of the secret-scan pair: the same
// expressions, a word boundary where the rule needs a word start. (rg has
// no entropy or placeholder checks, so it may count more matches.)
func secretPatternsCmd(w io.Writer) error {
	for _, r := range secrets.Default.Rules() {
		// A built-in rule keeps its source in Expr until first hit.
		src := r.Expr
		if r.Pattern != nil {
			src = r.Pattern.String()
		}
		// rg joins the patterns into one: a group name may appear once.
		p := strings.ReplaceAll(src, "(?P<secret>", "(")
		if r.WordStart {
			p = `\b(?:` + p + `)`
		}
		if _, err := fmt.Fprintln(w, p); err != nil {
			return err
		}
	}
	return nil
}
