package search

import (
	"math/rand/v2"
	"testing"
)

// naivePair is indexPair by definition.
func naivePair(hay []byte, d int, c1, c2, m1, m2 byte) int {
	for i := 0; i+d < len(hay); i++ {
		if hay[i]|m1 == c1 && hay[i+d]|m2 == c2 {
			return i
		}
	}
	return -1
}

// TestIndexPair plants the pair at every position of haystacks of every
// length around the vector block sizes, in both cases, so that the
// 32-position loop, the 16-position step and the tail all meet it.
func TestIndexPair(t *testing.T) {
	t.Run("AVX2", func(t *testing.T) {
		if !useAVX2 {
			t.Skip("no AVX2 here")
		}
		testIndexPair(t)
	})
	t.Run("SSE2", func(t *testing.T) {
		defer func(old bool) { useAVX2 = old }(useAVX2)
		useAVX2 = false
		testIndexPair(t)
	})
}

func testIndexPair(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 200; n++ {
		for _, d := range []int{0, 1, 5, 17, 40, 70} {
			hay := make([]byte, n)
			for i := range hay {
				hay[i] = "xyz.-Q"[rng.IntN(6)]
			}
			check := func(what string) {
				t.Helper()
				for _, c := range []struct{ c1, c2, m1, m2 byte }{{'a', 'b', 0x20, 0x20}, {'a', '@', 0x20, 0}, {'@', '@', 0, 0}} {
					want := naivePair(hay, d, c.c1, c.c2, c.m1, c.m2)
					if got := indexPair(hay, d, c.c1, c.c2, c.m1, c.m2); got != want {
						t.Fatalf("%s: indexPair(%q, %d, %q, %q) = %d, want %d", what, hay, d, c.c1, c.c2, got, want)
					}
					if got := indexPairSWAR(hay, d, c.c1, c.c2, c.m1, c.m2); got != want {
						t.Fatalf("%s: indexPairSWAR(%q, %d, %q, %q) = %d, want %d", what, hay, d, c.c1, c.c2, got, want)
					}
				}
			}
			check("no pair")
			for p := 0; p+d < n; p++ {
				saved1, saved2 := hay[p], hay[p+d]
				hay[p], hay[p+d] = "aA@"[rng.IntN(3)], "bB@"[rng.IntN(3)]
				check("planted")
				hay[p], hay[p+d] = saved1, saved2
			}
		}
	}
}

func FuzzIndexPair(f *testing.F) {
	f.Add([]byte("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxAxxB"), uint8(4), byte('a'), byte('b'), true)
	f.Fuzz(func(t *testing.T, hay []byte, d uint8, c1, c2 byte, fold bool) {
		var m1, m2 byte
		if fold {
			m1, m2 = caseMask(c1), caseMask(c2)
		}
		want := naivePair(hay, int(d), c1, c2, m1, m2)
		if got := indexPair(hay, int(d), c1, c2, m1, m2); got != want {
			t.Fatalf("indexPair(%q, %d, %q, %q, %#x, %#x) = %d, want %d", hay, d, c1, c2, m1, m2, got, want)
		}
		if got := indexPairSWAR(hay, int(d), c1, c2, m1, m2); got != want {
			t.Fatalf("indexPairSWAR(%q, %d, %q, %q, %#x, %#x) = %d, want %d", hay, d, c1, c2, m1, m2, got, want)
		}
	})
}
