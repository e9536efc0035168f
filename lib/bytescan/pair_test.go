package bytescan

import (
	"bytes"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
)

// naivePair is IndexPair by definition.
func naivePair(hay []byte, d int, c1, c2, m1, m2 byte) int {
	for i := 0; i+d < len(hay); i++ {
		if hay[i]|m1 == c1 && hay[i+d]|m2 == c2 {
			return i
		}
	}
	return -1
}

// eachPath runs f with the AVX2 loop (where the CPU has it) and with SSE2
// only; f checks the plain-Go scan (indexPairSWAR) itself.
func eachPath(t *testing.T, f func(t *testing.T)) {
	t.Run("AVX2", func(t *testing.T) {
		if !hasAVX2() {
			t.Skip("no AVX2 here")
		}
		defer SetAVX2(true)()
		f(t)
	})
	t.Run("SSE2", func(t *testing.T) {
		defer SetAVX2(false)()
		f(t)
	})
}

// TestIndexPair plants the pair at every position of haystacks of every
// length around the vector block sizes, in both cases, so that the
// 32-position loop, the 16-position step and the tail all meet it.
func TestIndexPair(t *testing.T) { eachPath(t, testIndexPair) }

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
					if got := IndexPair(hay, d, c.c1, c.c2, c.m1, c.m2); got != want {
						t.Fatalf("%s: IndexPair(%q, %d, %q, %q) = %d, want %d", what, hay, d, c.c1, c.c2, got, want)
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

// TestIndexByte checks IndexByte against bytes.IndexByte at every
// position and length around the block sizes.
func TestIndexByte(t *testing.T) {
	eachPath(t, func(t *testing.T) {
		for n := 0; n <= 130; n++ {
			hay := bytes.Repeat([]byte{'x'}, n)
			for p := -1; p < n; p++ {
				if p >= 0 {
					hay[p] = '"'
				}
				if got, want := IndexByte(hay, '"'), bytes.IndexByte(hay, '"'); got != want {
					t.Fatalf("IndexByte(%q) = %d, want %d", hay, got, want)
				}
				if p >= 0 {
					hay[p] = 'x'
				}
			}
		}
	})
}

// TestSetAVX2 checks that SetAVX2 restores the setting and never turns
// on AVX2 where the CPU lacks it.
func TestSetAVX2(t *testing.T) {
	before := AVX2()
	restore := SetAVX2(true)
	if AVX2() != hasAVX2() {
		t.Errorf("SetAVX2(true): AVX2() = %v on a CPU with AVX2 %v", AVX2(), hasAVX2())
	}
	SetAVX2(false)
	if AVX2() {
		t.Error("SetAVX2(false): AVX2() still true")
	}
	restore()
	if AVX2() != before {
		t.Errorf("restored AVX2() = %v, want %v", AVX2(), before)
	}
}

func FuzzIndexPair(f *testing.F) {
	f.Add([]byte("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxAxxB"), uint8(4), byte('a'), byte('b'), true)
	f.Add([]byte(`{"type":"assistant"}`), uint8(1), byte('"'), byte('a'), false)
	f.Fuzz(func(t *testing.T, hay []byte, d uint8, c1, c2 byte, fold bool) {
		var m1, m2 byte
		if fold {
			m1, m2 = CaseMask(c1), CaseMask(c2)
		}
		want := naivePair(hay, int(d), c1, c2, m1, m2)
		for _, avx := range []bool{true, false} {
			restore := SetAVX2(avx)
			got := IndexPair(hay, int(d), c1, c2, m1, m2)
			restore()
			if got != want {
				t.Fatalf("IndexPair(%q, %d, %q, %q, %#x, %#x), AVX2 %v = %d, want %d", hay, d, c1, c2, m1, m2, avx, got, want)
			}
		}
		if got := indexPairSWAR(hay, int(d), c1, c2, m1, m2); got != want {
			t.Fatalf("indexPairSWAR(%q, %d, %q, %q, %#x, %#x) = %d, want %d", hay, d, c1, c2, m1, m2, got, want)
		}
	})
}

// benchText is JSON lines of English words with no byte under 0x20 but
// the newlines: what the scans meet in a transcript.
func benchText(n int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields(`the a to of and in is it for that this with test file error run go build func return
		value line read write session user assistant tool_use tool_result content type message text json path`)
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(`{"type":"assistant","message":{"content":[{"type":"text","text":"`)
		for range 40 + rng.IntN(80) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		b.WriteString("\"}]}}\n")
	}
	return []byte(b.String()[:n])
}

// BenchmarkIndexPair is the raw pair scan over text without a hit, in
// AVX2 (where the CPU has it), in SSE2 and in plain Go.
func BenchmarkIndexPair(b *testing.B) {
	text := benchText(256 << 10)
	for _, path := range []string{"AVX2", "SSE2", "Go"} {
		b.Run(path, func(b *testing.B) {
			if path == "AVX2" && !hasAVX2() {
				b.Skip("no AVX2 here")
			}
			defer SetAVX2(path == "AVX2")()
			scan := IndexPair
			if path == "Go" {
				scan = indexPairSWAR
			}
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if scan(text, 3, '\x01', '\x02', 0, 0) >= 0 {
					b.Fatal("found")
				}
			}
		})
	}
}

// TestHasAVX2 checks the CPU question against golang.org/x/sys/cpu's
// answer, which bytescan took at start before it asked at the first scan.
func TestHasAVX2(t *testing.T) {
	if strings.Contains(os.Getenv("GODEBUG"), "cpu.") {
		t.Skip("GODEBUG sets CPU options, which x/sys/cpu reads and hasAVX2 does not")
	}
	if runtime.GOARCH == "amd64" && hasAVX2() != cpu.X86.HasAVX2 {
		t.Errorf("hasAVX2() = %v, x/sys/cpu says %v", hasAVX2(), cpu.X86.HasAVX2)
	}
}
