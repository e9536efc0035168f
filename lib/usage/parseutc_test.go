package usage

import (
	"strings"
	"testing"
	"time"
)

// FuzzParseUTC holds ParseUTC to time.Parse: where it reads a timestamp,
// time.Parse reads the same second; where it declines one of its own
// form, time.Parse fails too (others go to time.Parse anyway).
func FuzzParseUTC(f *testing.F) {
	for _, s := range []string{"2026-11-30T10:33:39.797Z", "2024-02-29T23:59:59Z", "2023-02-29T00:00:00Z",
		"2026-12-31T24:00:00Z", "2026-01-01T00:00:60Z", "2026-04-31T01:02:03.1234567891Z", "0000-01-01T00:00:00.0Z", "2026-11-30T10:33:39.Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sec, ok := ParseUTC(s)
		tm, err := time.Parse(time.RFC3339Nano, s)
		if ok {
			if err != nil || tm.Unix() != sec {
				t.Fatalf("ParseUTC(%q) = %d; time.Parse: %v %v", s, sec, tm.Unix(), err)
			}
		} else if err == nil && len(s) >= 20 && len(s) <= 30 && s[len(s)-1] == 'Z' && tm.Location() == time.UTC && tm.Year() >= 0 {
			// Declined a form time.Parse reads: allowed only outside ours.
			if s[10] == 'T' && s[4] == '-' && strings.Count(s, ":") == 2 && (len(s) == 20 || s[19] == '.') {
				t.Fatalf("ParseUTC declined %q, which time.Parse reads as %v", s, tm)
			}
		}
	})
}
