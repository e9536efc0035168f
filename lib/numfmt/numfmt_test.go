package numfmt

import (
	"math"
	"testing"
)

func TestThousands(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {999, "999"}, {1000, "1,000"}, {-1234567, "-1,234,567"},
		{math.MaxInt64, "9,223,372,036,854,775,807"}, {math.MinInt64, "-9,223,372,036,854,775,808"},
	} {
		if got := Thousands(tt.n); got != tt.want {
			t.Errorf("Thousands(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
