package transcript

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/bytescan"
)

// TestContainsNeedleAgreesWithBytes runs on both vector paths of the
// pair scan.
func TestContainsNeedleAgreesWithBytes(t *testing.T) {
	for _, avx := range []bool{true, false} {
		restore := bytescan.SetAVX2(avx)
		testContainsNeedle(t)
		restore()
	}
}

func testContainsNeedle(t *testing.T) {
	needle := []byte(`"assistant"`)
	hay := []string{"", `"`, `"assistant`, `"assistant"`, `x"assistant"`, `"assistan"t"`, `""assistant"`,
		strings.Repeat(`"a`, 40) + `"assistant"`, strings.Repeat(`"a`, 40) + `"assistant`,
		strings.Repeat("x", 15) + `"assistant"`, strings.Repeat("x", 16) + `"assistant"` + strings.Repeat("y", 16),
		strings.Repeat(`"assistant`, 9) + `x`}
	for _, h := range hay {
		// Every offset and cut, so each position meets the block edges.
		for i := 0; i <= len(h); i++ {
			for j := i; j <= len(h); j++ {
				s := []byte(h[i:j])
				if got, want := containsNeedle(s, needle), bytes.Contains(s, needle); got != want {
					t.Fatalf("containsNeedle(%q) = %v, bytes.Contains %v", s, got, want)
				}
			}
		}
	}
}

// FuzzContainsNeedle checks the prefilter's search against bytes.Contains.
func FuzzContainsNeedle(f *testing.F) {
	f.Add([]byte(`{"type":"assistant"}`), []byte(`"assistant"`))
	f.Add([]byte(strings.Repeat(`"u`, 20)+`"user"`), []byte(`"user"`))
	f.Fuzz(func(t *testing.T, s, n []byte) {
		if len(n) < 2 {
			return
		}
		if got, want := containsNeedle(s, n), bytes.Contains(s, n); got != want {
			t.Fatalf("containsNeedle(%q, %q) = %v, bytes.Contains %v", s, n, got, want)
		}
	})
}
