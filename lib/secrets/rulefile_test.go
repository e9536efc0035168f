package secrets

import (
	"strings"
	"testing"
)

func TestParseRules(t *testing.T) {
	src := "# site rules\n\nacme-token acme_[A-Za-z0-9]{8}\ncorp-password\t(?i)corp_pass=(?P<secret>\\S{8,})\n"
	rules, err := ParseRules(strings.NewReader(src), "site.rules")
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 2 || len(rules[0].Keywords) != 1 || rules[0].Keywords[0] != "acme_" || len(rules[1].Keywords) != 0 {
		t.Fatalf("rules: %+v", rules)
	}
	set, err := Default.With(rules...)
	if err != nil {
		t.Fatal(err)
	}
	text := "use acme_AbCd1234 and CORP_PASS=hunter22x then"
	out, ms := set.ReplaceString(text)
	if len(ms) != 2 || out != "use [REDACTED:acme-token] and CORP_PASS=[REDACTED:corp-password] then" {
		t.Fatalf("got %q %v", out, ms)
	}
	// acme_ is found anywhere, not only at the start of the text.
	if ms := set.FindString(strings.Repeat("x ", 300) + "acme_AbCd1234"); len(ms) != 1 {
		t.Fatalf("got %v", ms)
	}
}

func TestParseRulesErrors(t *testing.T) {
	for src, want := range map[string]string{
		"lonely\n":          "f:1: want a kind and a pattern",
		"# c\nBad-Kind x\n": "f:2: kind \"Bad-Kind\"",
		"ok a(b\n":          "f:1: error parsing regexp",
	} {
		_, err := ParseRules(strings.NewReader(src), "f")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", src, err, want)
		}
	}
}
