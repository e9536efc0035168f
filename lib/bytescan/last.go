package bytescan

import "bytes"

// lastWindow is how far back LastIndexByte looks at once.
const lastWindow = 256

// LastIndexByte is bytes.LastIndexByte, faster when c is far from the
// end: that one steps back a byte at a time, this asks bytes.IndexByte
// (a vector scan) whether each window back from the end holds c, and
// steps only through the window that does.
func LastIndexByte(b []byte, c byte) int {
	for end := len(b); end > 0; {
		start := max(0, end-lastWindow)
		if bytes.IndexByte(b[start:end], c) >= 0 {
			return start + bytes.LastIndexByte(b[start:end], c)
		}
		end = start
	}
	return -1
}
