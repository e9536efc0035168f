package quote

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	long := strings.Repeat("x", 10000)
	tests := []struct{ in, want string }{
		{"", ""},
		{"2026-05-02T10:00:00Z", "2026-05-02T10:00:00Z"},
		{strings.Repeat("a", Max), strings.Repeat("a", Max)},
		{strings.Repeat("a", Max+1), strings.Repeat("a", Max-1) + "…"},
		{long, strings.Repeat("x", Max-1) + "…"},
		{strings.Repeat("é", 200), strings.Repeat("é", Max-1) + "…"},
	}
	for _, tt := range tests {
		got := Cut(tt.in)
		if got != tt.want {
			t.Errorf("Cut(%d bytes) = %q, want %q", len(tt.in), got, tt.want)
		}
		if n := utf8.RuneCountInString(got); n > Max || !utf8.ValidString(got) {
			t.Errorf("Cut(%d bytes): %d characters, valid %v", len(tt.in), n, utf8.ValidString(got))
		}
	}
	if got, want := Q(long), `"`+strings.Repeat("x", Max-1)+`…"`; got != want {
		t.Errorf("Q = %q, want %q", got, want)
	}
}

func FuzzCut(f *testing.F) {
	f.Add("x")
	f.Add(strings.Repeat("\xff", 100))
	f.Fuzz(func(t *testing.T, s string) {
		got := Cut(s)
		if utf8.RuneCountInString(got) > Max {
			t.Fatalf("Cut gave %d characters", utf8.RuneCountInString(got))
		}
		if got != s && !strings.HasSuffix(got, "…") {
			t.Fatalf("a cut value does not end in …: %q", got)
		}
		if got != s && !strings.HasPrefix(s, strings.TrimSuffix(got, "…")) {
			t.Fatalf("Cut is not a prefix of s")
		}
	})
}
