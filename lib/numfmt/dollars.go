package numfmt

import (
	"math"
	"strconv"
	"strings"
)

// Dollars is an amount of US dollars for a person to read, the one money
// format of every table, page and status line: cents with thousands
// separators ($1,234.57), and an amount under a cent with two significant
// digits at most ($0.0042, $0.00012, $0.0008), so that a cheap session never reads as
// $0.00. Zero is $0.00; a negative amount is -$12.50. Records keep the
// exact float; this is for reading only.
func Dollars(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	sign := ""
	if f < 0 {
		sign = "-"
	}
	a := math.Abs(f)
	if a > 0 && a < 0.01 {
		// Two significant digits: rounded in e notation first, whose
		// exponent then says how many decimals (0.000999 is 1.0e-03).
		e := strconv.FormatFloat(a, 'e', 1, 64)
		exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
		if exp < -2 { // else it rounded up to a cent
			return sign + "$" + strings.TrimRight(strconv.FormatFloat(a, 'f', 1-exp, 64), "0")
		}
	}
	s := strconv.FormatFloat(a, 'f', 2, 64)
	if s == "0.00" {
		return "$0.00"
	}
	whole, frac, _ := strings.Cut(s, ".")
	n, _ := strconv.ParseInt(whole, 10, 64)
	return sign + "$" + Thousands(n) + "." + frac
}
