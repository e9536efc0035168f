package search

import "testing"

// BenchmarkIndexPair is the raw pair scan over text without a candidate,
// in AVX2 (where the CPU has it) and in SSE2.
func BenchmarkIndexPair(b *testing.B) {
	text := benchText(DefaultBufSize)
	for _, avx := range []bool{true, false} {
		b.Run(map[bool]string{true: "AVX2", false: "SSE2"}[avx], func(b *testing.B) {
			if avx && !useAVX2 {
				b.Skip("no AVX2 here")
			}
			defer func(old bool) { useAVX2 = old }(useAVX2)
			useAVX2 = avx
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if indexPair(text, 3, '\x01', '\x02', 0, 0) >= 0 {
					b.Fatal("found")
				}
			}
		})
	}
}
