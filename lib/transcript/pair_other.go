//go:build !amd64

package transcript

import "bytes"

// indexPair returns the first i with s[i] == a and s[i+k] == b (k > 0),
// or -1.
func indexPair(s []byte, a, b byte, k int) int {
	for i := 0; i+k < len(s); {
		j := bytes.IndexByte(s[i:len(s)-k], a)
		if j < 0 {
			return -1
		}
		if i += j; s[i+k] == b {
			return i
		}
		i++
	}
	return -1
}
