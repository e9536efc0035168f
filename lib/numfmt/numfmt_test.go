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

func TestMinutes(t *testing.T) {
	for _, tt := range []struct {
		m    int64
		want string
	}{
		{0, "0m"}, {59, "59m"}, {60, "1h00m"}, {134, "2h14m"}, {300, "5h00m"}, {-5, "-5m"},
	} {
		if got := Minutes(tt.m); got != tt.want {
			t.Errorf("Minutes(%d) = %q, want %q", tt.m, got, tt.want)
		}
	}
}
