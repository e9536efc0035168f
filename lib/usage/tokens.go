package usage

import "math"

// Tokens are a message's token counts, as its usage object gives them.
type Tokens struct {
	InputTokens              int64
	OutputTokens             int64
	CacheReadInputTokens     int64
	CacheCreationInputTokens int64
	// CacheCreation5m and CacheCreation1h split CacheCreationInputTokens
	// by the cache's lifetime (usage.cache_creation); both 0 when the
	// usage has no split.
	CacheCreation5m int64
	CacheCreation1h int64
}

// Total is the one token total: input + output + cache read + cache
// write (the split is part of the cache write), held at int64's bounds;
// ok is false when it had to be.
func (t *Tokens) Total() (total int64, ok bool) {
	return addAll(t.InputTokens, t.OutputTokens, t.CacheReadInputTokens, t.CacheCreationInputTokens)
}

// Add adds b to *a, holding the sum at int64's bounds instead of
// wrapping; it reports false when it had to.
func Add(a *int64, b int64) bool {
	s := *a + b
	switch {
	case b > 0 && s < *a:
		*a = math.MaxInt64
		return false
	case b < 0 && s > *a:
		*a = math.MinInt64
		return false
	}
	*a = s
	return true
}

func addAll(v ...int64) (int64, bool) {
	var t int64
	ok := true
	for _, n := range v {
		ok = Add(&t, n) && ok
	}
	return t, ok
}
