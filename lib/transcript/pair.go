package transcript

import "bytes"

// containsNeedle reports whether s holds n (len(n) >= 2): candidates
// where n's first two bytes meet are found with indexPair, then compared.
func containsNeedle(s, n []byte) bool {
	for len(s) >= len(n) {
		i := indexPair(s[:len(s)-len(n)+2], n[0], n[1], 1)
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
