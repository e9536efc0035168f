// Package quote shows a value that came from outside (a flag's value, a
// query, a record's timestamp or id) inside a message: cut to Max
// characters, the last one …, so a 10,000-character value names itself
// without filling the terminal. It holds the one rule of how long such a
// value may be in a message; it does not mask secrets (lib/cli does, as it
// prints).
package quote

import (
	"strconv"
	"unicode/utf8"
)

// Max is how many characters of a value a message shows.
const Max = 80

// Cut shortens s to Max characters, the last one …; a shorter s is
// returned as it is. It never splits a UTF-8 sequence.
func Cut(s string) string {
	if len(s) <= Max || utf8.RuneCountInString(s) <= Max {
		return s
	}
	n := 0
	for i := range s {
		if n == Max-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// Q is Cut(s) quoted as %q quotes it.
func Q(s string) string { return strconv.Quote(Cut(s)) }
