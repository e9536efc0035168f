package ccredact

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// BenchmarkHook is --hook's work after start-up, on bench/run's clean
// PostToolUse payload and on the same with two keys.
func BenchmarkHook(b *testing.B) {
	clean, err := os.ReadFile("../../../bench/testdata/posttooluse.json")
	if err != nil {
		b.Fatal(err)
	}
	ps := plants()
	keys := bytes.Replace(clean, []byte("libexample050"), []byte(ps[0].secret+" "), 1)
	keys = bytes.Replace(keys, []byte("libexample120"), []byte(ps[4].secret+" "), 1)
	for _, bb := range []struct {
		name    string
		payload []byte
	}{{"clean", clean}, {"keys", keys}} {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(bb.payload)))
			for i := 0; i < b.N; i++ {
				var out, errb bytes.Buffer
				if code := RunWith(hookSystem, []string{"--hook"}, bytes.NewReader(bb.payload), &out, &errb); code != 0 || errb.Len() > 0 ||
					(bb.name == "keys") != strings.Contains(out.String(), "[REDACTED:github-token]") {
					b.Fatalf("exit %d %q %q", code, out.String(), errb.String())
				}
			}
		})
	}
}
