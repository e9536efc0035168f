package transcript

// indexPairSSE2 is in pair_amd64.s.
//
//go:noescape
func indexPairSSE2(s []byte, a, b byte, k int) int

// indexPair returns the first i with s[i] == a and s[i+k] == b (k > 0),
// or -1. It is the prefilter's search: in JSON the quote that opens a type
// name is one byte in 40, so bytes.Index, which stops at each one, spent
// most of a --types run there; a quote followed by the name's first letter
// is one position in 1600, and sixteen positions are checked at once.
func indexPair(s []byte, a, b byte, k int) int {
	i := indexPairSSE2(s, a, b, k)
	if i >= 0 {
		return i
	}
	return indexPairTail(s, a, b, k, ^i)
}

// indexPairTail is indexPair's scalar end: positions from i on.
func indexPairTail(s []byte, a, b byte, k, i int) int {
	for ; i+k < len(s); i++ {
		if s[i] == a && s[i+k] == b {
			return i
		}
	}
	return -1
}
