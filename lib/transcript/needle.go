package transcript

import (
	"bytes"

	"github.com/ccpipe/ccpipe/lib/bytescan"
)

// containsNeedle reports whether s holds n (len(n) >= 2). In JSON the
// quote that opens a type name is one byte in 40, so bytes.Index, which
// stops at each one, spent most of a --types run there; a quote followed
// by the name's first letter is one position in 1600: candidates where
// n's first two bytes meet are found with bytescan.IndexPair, a block of
// positions at a time, then compared.
func containsNeedle(s, n []byte) bool {
	for len(s) >= len(n) {
		i := bytescan.IndexPair(s[:len(s)-len(n)+2], 1, n[0], n[1], 0, 0)
		if i < 0 {
			return false
		}
		if bytes.Equal(s[i:i+len(n)], n) {
			return true
		}
		s = s[i+1:]
	}
	return false
}

// Contains reports whether s holds n, as bytes.Contains does, by
// containsNeedle's search (n of at least 2 bytes; shorter ones are left to
// bytes.Contains).
func Contains(s, n []byte) bool {
	if len(n) < 2 {
		return bytes.Contains(s, n)
	}
	return containsNeedle(s, n)
}
