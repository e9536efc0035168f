package extract

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestFindLinesRandom compares the line finder with splitting, on random
// input full of newlines and pattern bytes, with buffers small enough
// that long lines are searched on the way and read back.
func TestFindLinesRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alpha := []byte("ab\n\rx")
	for iter := 0; iter < 2000; iter++ {
		in := make([]byte, rng.IntN(20000))
		for i := range in {
			in[i] = alpha[rng.IntN(len(alpha))]
			if rng.IntN(50) == 0 {
				in[i] = byte(rng.IntN(256))
			}
		}
		pat := make([]byte, 1+rng.IntN(20))
		for i := range pat {
			pat[i] = "abx"[rng.IntN(3)] // no \r: lines are searched without their CRLF's \r
		}
		size := rng.IntN(256) + 1
		wantLines, wantNums := naiveLines(in, pat)
		var lines []string
		var nums []int
		_, err := eachLineWith(bytes.NewReader(in), pat, make([]byte, size), func(line []byte, n int, _ bool) error {
			lines = append(lines, string(line))
			nums = append(nums, n)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(lines, "\x00") != strings.Join(wantLines, "\x00") || len(lines) != len(wantLines) ||
			fmt.Sprint(nums) != fmt.Sprint(wantNums) {
			t.Fatalf("in=%q pat=%q buffer %d:\n got %q %v\nwant %q %v", in, pat, size, lines, nums, wantLines, wantNums)
		}
	}
}
