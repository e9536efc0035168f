package usage

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

// FuzzEachLineWith checks the chunked line finder against splitting.
func FuzzEachLineWith(f *testing.F) {
	f.Add([]byte("a\nxab\r\nab"), []byte("ab"), uint8(3))
	f.Add([]byte("\n\n\nab\n"), []byte("b\n"), uint8(0))
	f.Add([]byte("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxab\nab"), []byte("ab"), uint8(5))
	f.Fuzz(func(t *testing.T, in, pat []byte, keep uint8) {
		if len(pat) == 0 || bytes.ContainsAny(pat, "\r\n") {
			return
		}
		wantLines, wantNums := naiveLines(in, pat)
		var lines []string
		var nums []int
		// A small buffer makes long lines searched on the way and read
		// back (bytes.Reader can be read at an offset).
		_, err := eachLineWith(bytes.NewReader(in), pat, make([]byte, int(keep)+1), func(line []byte, n int, _ bool) error {
			lines = append(lines, string(line))
			nums = append(nums, n)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(lines, "\x00") != strings.Join(wantLines, "\x00") || len(lines) != len(wantLines) {
			t.Errorf("lines %q, want %q", lines, wantLines)
		}
		for i := range nums {
			if i < len(wantNums) && nums[i] != wantNums[i] {
				t.Errorf("line numbers %v, want %v", nums, wantNums)
				break
			}
		}
	})
}

// FuzzLinesPassedOver checks that the usage fast path sees every line:
// those with the pattern go to fn, all others to other, each once with
// its number (a line too long to hold, by its head only).
func FuzzLinesPassedOver(f *testing.F) {
	f.Add([]byte("a\nxab\r\nab"), []byte("ab"), uint8(3))
	f.Add([]byte("x\n\ny\nab\nzz"), []byte("ab"), uint8(40))
	f.Add([]byte("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxab\nq\nab"), []byte("ab"), uint8(5))
	f.Fuzz(func(t *testing.T, in, pat []byte, keep uint8) {
		if len(pat) == 0 || bytes.ContainsAny(pat, "\r\n") {
			return
		}
		want := bytes.Split(in, []byte("\n"))
		if len(want[len(want)-1]) == 0 {
			want = want[:len(want)-1]
		}
		got := make([][]byte, len(want)+1)
		seen := make([]int, len(want)+1)
		put := func(n int, line []byte, head bool) {
			if n < 1 || n > len(want) {
				t.Fatalf("line number %d of %d", n, len(want))
			}
			seen[n]++
			// Lines come without the \r of a CRLF; a line passed over
			// unread, by its first bytes.
			w := bytes.TrimSuffix(want[n-1], []byte("\r"))
			if head && bytes.HasPrefix(w, line) {
				line = w
			}
			got[n] = bytes.Clone(line)
		}
		// A line too long to read comes to other by its first bytes.
		lf := &lineFinder{pat: pat,
			fn: func(line []byte, n int, _ bool) error {
				put(n, line, false)
				return nil
			},
			other: func(line []byte, n int, _ bool) { put(n, line, true) }}
		if _, err := lf.find(bytes.NewReader(in), make([]byte, int(keep)+1)); err != nil {
			t.Fatal(err)
		}
		for n := 1; n <= len(want); n++ {
			if seen[n] != 1 || !bytes.Equal(got[n], bytes.TrimSuffix(want[n-1], []byte("\r"))) {
				t.Fatalf("line %d seen %d times as %q, want %q", n, seen[n], got[n], want[n-1])
			}
		}
	})
}
