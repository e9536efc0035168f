package usage

// keySet is a set of message keys (64-bit hashes): open addressing in
// one array, 8 bytes a key. A Go map of them allocated four times the
// memory as it grew, and fresh memory is much of a warm cached run.
type keySet struct {
	slots []uint64 // 0: empty
	n     int
	zero  bool // the key 0, which marks an empty slot
	shift uint
}

// add puts k in the set; false when it was there.
func (s *keySet) add(k uint64) bool {
	if k == 0 {
		was := s.zero
		s.zero = true
		return !was
	}
	if (s.n+1)*4 > len(s.slots)*3 {
		s.grow()
	}
	if !s.put(k) {
		return false
	}
	s.n++
	return true
}

// has reports whether k is in the set.
func (s *keySet) has(k uint64) bool {
	if k == 0 {
		return s.zero
	}
	if len(s.slots) == 0 {
		return false
	}
	_, found := s.find(k)
	return found
}

// find is the slot holding k, or the empty one where it would go.
func (s *keySet) find(k uint64) (uint64, bool) {
	mask := uint64(len(s.slots) - 1)
	for i := s.home(k); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return i, true
		case 0:
			return i, false
		}
	}
}

// home is k's first slot: its hash spread by Fibonacci hashing, so
// that keys alike in their low bits do not crowd.
func (s *keySet) home(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> s.shift }

func (s *keySet) put(k uint64) bool {
	i, found := s.find(k)
	if !found {
		s.slots[i] = k
	}
	return !found
}

func (s *keySet) grow() {
	old := s.slots
	size := max(2*len(old), 1024)
	s.slots = make([]uint64, size)
	s.shift = 64
	for n := size; n > 1; n >>= 1 {
		s.shift--
	}
	for _, k := range old {
		if k != 0 {
			s.put(k)
		}
	}
}
