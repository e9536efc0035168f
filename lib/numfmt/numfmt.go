// Package numfmt writes numbers for people to read: the token counts of
// a table and of a rendered page are grouped the same way.
package numfmt

import (
	"fmt"
	"strconv"
	"strings"
)

// Thousands writes n with a comma between each group of three digits.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Minutes is a span of whole minutes for a person to read: 2h14m, or 42m
// under an hour (the status line's time left and its "over in").
func Minutes(m int64) string {
	if m >= 60 {
		return fmt.Sprintf("%dh%02dm", m/60, m%60)
	}
	return fmt.Sprintf("%dm", m)
}
