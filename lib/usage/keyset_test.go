package usage

import (
	"math/rand"
	"testing"
)

// TestKeySet holds keySet to a map on random keys, 0 and repeats among
// them, across its growth.
func TestKeySet(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	var s keySet
	want := map[uint64]bool{}
	keys := []uint64{0, 1, 1 << 63, ^uint64(0)}
	for range 50000 {
		k := r.Uint64()
		if r.Intn(8) == 0 {
			k &= 0xffff // alike low bits, many repeats
		}
		keys = append(keys, k)
	}
	for i, k := range keys {
		if got := s.has(k); got != want[k] {
			t.Fatalf("key %d (%x): has %v, want %v", i, k, got, want[k])
		}
		if added := s.add(k); added == want[k] {
			t.Fatalf("key %d (%x): add said %v with the key there: %v", i, k, added, want[k])
		}
		want[k] = true
	}
	for k := range want {
		if !s.has(k) {
			t.Fatalf("%x lost", k)
		}
	}
	if s.n+btoi(s.zero) != len(want) {
		t.Fatalf("%d keys counted, %d added", s.n+btoi(s.zero), len(want))
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
