package bytescan

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"sync/atomic"
)

// IndexByte is bytes.IndexByte, through the AVX2 pair scan where there is
// one: that scan prefetches, which bytes.IndexByte does not, and a mapped
// file is read from memory.
func IndexByte(b []byte, c byte) int {
	if avx2() {
		return IndexPair(b, 0, c, c, 0, 0)
	}
	return bytes.IndexByte(b, c)
}

// IndexPair returns the first i with (hay[i]|m1) == c1 and
// (hay[i+d]|m2) == c2, i+d < len(hay), d >= 0, or -1. A mask of 0x20 makes
// the comparison of a lowercase letter ignore ASCII case (see CaseMask), 0
// keeps it exact. Two bytes at their distance are rare together where
// each alone is common, so the scan stops far less often than at each hit
// of one byte.
func IndexPair(hay []byte, d int, c1, c2, m1, m2 byte) int {
	if !vectorPair {
		return indexPairSWAR(hay, d, c1, c2, m1, m2)
	}
	n := len(hay) - d // positions
	if n <= 0 {
		return -1
	}
	i := 0
	if avx2() {
		if j := indexPairBlocksAVX2(hay, d, c1, c2, m1, m2); j >= 0 {
			return j
		}
		i = n &^ 31
	}
	if j := indexPairBlocks(hay[i:], d, c1, c2, m1, m2); j >= 0 {
		return i + j
	}
	for i += (n - i) &^ 15; i < n; i++ {
		if hay[i]|m1 == c1 && hay[i+d]|m2 == c2 {
			return i
		}
	}
	return -1
}

// CaseMask is the mask that makes IndexPair ignore the case of c: 0x20
// for a lowercase letter, else 0.
func CaseMask(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return 0x20
	}
	return 0
}

// AVX2 reports whether IndexPair runs its AVX2 loop: without it the pair
// scan is slower than bytes.IndexByte, which changes what a caller picks.
func AVX2() bool { return avx2() }

// SetAVX2 turns the AVX2 loop off (on is honoured only where the CPU has
// AVX2) until restore is called, so that tests of callers can run the
// SSE2 path too. It is not safe while a scan runs.
func SetAVX2(on bool) (restore func()) {
	old := useAVX2.Load()
	setAVX2(on && hasAVX2())
	return func() { useAVX2.Store(old) }
}

// vectorPair tells whether indexPairBlocks is implemented.
const vectorPair = runtime.GOARCH == "amd64"

// useAVX2 tells IndexPair to use indexPairBlocksAVX2: 1 yes, -1 no, 0 not
// decided before the first scan (hasAVX2). A variable so that tests can
// check the SSE2 path too; atomic as the first scans may run in parallel.
var useAVX2 atomic.Int32

func avx2() bool {
	if v := useAVX2.Load(); v != 0 {
		return v > 0
	}
	return decideAVX2()
}

// decideAVX2 is avx2's first call, apart so that avx2 inlines.
func decideAVX2() bool { return setAVX2(hasAVX2()) }

func setAVX2(on bool) bool {
	if on {
		useAVX2.Store(1)
	} else {
		useAVX2.Store(-1)
	}
	return on
}

// indexPairSWAR is IndexPair in Go, 8 positions per step (SWAR).
func indexPairSWAR(hay []byte, d int, c1, c2, m1, m2 byte) int {
	const ones = 0x0101010101010101
	n := len(hay) - d
	w1, w2 := uint64(c1)*ones, uint64(c2)*ones
	o1, o2 := uint64(m1)*ones, uint64(m2)*ones
	i := 0
	for ; i+8 <= n; i += 8 {
		x := (binary.LittleEndian.Uint64(hay[i:]) | o1) ^ w1
		y := (binary.LittleEndian.Uint64(hay[i+d:]) | o2) ^ w2
		z := x | y // a zero byte where both match
		if (z-ones)&^z&(0x80*ones) != 0 {
			break // the loop below finds it
		}
	}
	for ; i < n; i++ {
		if hay[i]|m1 == c1 && hay[i+d]|m2 == c2 {
			return i
		}
	}
	return -1
}
