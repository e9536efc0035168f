package proxy

import (
	"strings"
	"testing"
)

// The divergence message masks every kind lib/secrets knows, not only
// Blackbox's four (issue 31 #8). Keys are built at run time: no
// credential-shaped literal in the source.
func TestDivergenceMasksEveryKind(t *testing.T) {
	mix := func(n int, alphabet string) string {
		var b strings.Builder
		for i := range n {
			b.WriteByte(alphabet[(i*7+3)%len(alphabet)])
		}
		return b.String()
	}
	keys := []string{
		"ghp_" + mix(36, "abcdefghijklmnopqrstuvwxyz0123456789ABCDEF"),
		"AKIA" + mix(16, "QWERTYUPASDFGHJKLZXCVBNM234567"),
		"xoxb-" + mix(12, "0123456789") + "-" + mix(24, "abcdefghijk0123456789"),
		"sk_live_" + mix(24, "abcdefghijklmnopqrstuvwxyz0123456789"),
	}
	for _, k := range keys {
		long := strings.Repeat("same prefix ", 20)
		for _, pair := range [][2]any{
			{map[string]any{"messages": []any{"key " + k}}, map[string]any{"messages": []any{"other"}}},
			{long + "a " + k, long + "b " + k}, // the late-difference window
		} {
			d := FirstDifference(pair[0], pair[1])
			if d == nil {
				t.Fatalf("%s: no difference", k[:4])
			}
			err := (&DivergenceError{Step: 1, Diff: *d}).Error()
			if strings.Contains(err, k[4:]) || !strings.Contains(err, "[redacted]") {
				t.Errorf("%s key not masked: %s", k[:4], err)
			}
		}
	}
}
