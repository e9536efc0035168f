package bytescan

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestLastIndexByte: LastIndexByte answers as bytes.LastIndexByte, its
// slow twin, for c at every distance from the end (across the window
// edges), twice, or absent.
func TestLastIndexByte(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, lastWindow - 1, lastWindow, lastWindow + 1, 3*lastWindow + 7, 9000} {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a' + byte(r.IntN(26))
		}
		check := func() {
			t.Helper()
			if got, want := LastIndexByte(b, '\n'), bytes.LastIndexByte(b, '\n'); got != want {
				t.Fatalf("len %d: LastIndexByte = %d, bytes.LastIndexByte = %d", n, got, want)
			}
		}
		check()
		for i := range b {
			b[i] = '\n'
			check()
			if j := r.IntN(i + 1); j != i {
				b[j] = '\n'
				check()
				b[j] = 'x'
			}
			b[i] = 'y'
		}
	}
}

func FuzzLastIndexByte(f *testing.F) {
	f.Add([]byte("a\nb"), byte('\n'))
	f.Fuzz(func(t *testing.T, b []byte, c byte) {
		if got, want := LastIndexByte(b, c), bytes.LastIndexByte(b, c); got != want {
			t.Fatalf("LastIndexByte = %d, bytes.LastIndexByte = %d", got, want)
		}
	})
}
