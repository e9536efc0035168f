package secrets

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzFind: matches stay in bounds, in order and apart; replacing is
// idempotent and leaves no match behind.
func FuzzFind(f *testing.F) {
	for _, p := range plants() {
		f.Add(strings.Replace(p.context, "%s", p.secret, 1))
	}
	f.Add("Bearer\u00a0" + strings.Repeat("x1", 9))
	f.Add("-----BEGIN PRIVATE KEY-----")
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		ms := Default.Find(b)
		last := 0
		for _, m := range ms {
			if m.Start < last || m.End <= m.Start || m.End > len(b) {
				t.Fatalf("bad match %v after %d in %d bytes", m, last, len(b))
			}
			last = m.End
		}
		out, _ := Default.Replace(b)
		if len(ms) == 0 && !bytes.Equal(out, b) {
			t.Fatal("changed without a match")
		}
		again, ms2 := Default.Replace(out)
		if len(ms2) != 0 || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %v", ms2)
		}
		for _, set := range []*Set{Blackbox.Markers, Blackbox.UserData} {
			set.Kinds(b)
		}
		MaskBlackbox(s, "abcd")
	})
}
