package spell

import "strings"

// DidYouMean returns "; did you mean X?" when word is a likely misspelling
// (or an unambiguous prefix) of one of candidates, else "". It ends the
// usage messages about unknown flags, values, subcommands, kinds and
// events, and rule files' keys, events and values.
func DidYouMean(word string, candidates []string) string {
	if s := Suggest(word, candidates); s != "" {
		return "; did you mean " + s + "?"
	}
	return ""
}

// Suggest returns the candidate closest to word: the one that differs in
// case only, the one a prefix of word's length names alone, else the
// nearest by edit distance when that distance is at most 2 (1 for a word
// of up to 4 letters). "" when none is close.
func Suggest(word string, candidates []string) string {
	if word == "" {
		return ""
	}
	prefixed := ""
	for _, c := range candidates {
		if c == word {
			return ""
		}
	}
	for _, c := range candidates {
		if strings.EqualFold(c, word) {
			return c // PreTooluse: PreToolUse
		}
	}
	for _, c := range candidates {
		if strings.HasPrefix(c, word) && len(word) >= 2 {
			if prefixed != "" {
				prefixed = "-" // ambiguous
			} else {
				prefixed = c
			}
		}
	}
	if prefixed != "" && prefixed != "-" {
		return prefixed
	}
	// Two edits turn most short words into any other short word.
	limit := 2
	if len(word) <= 4 {
		limit = 1
	}
	best, bestD := "", limit+1
	for _, c := range candidates {
		if d := Distance(word, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
