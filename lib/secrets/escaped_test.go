package secrets

import (
	"encoding/json"
	"strings"
	"testing"
)

// Tool output that is itself JSON text (a JSON string holding a file or a
// command's output) puts a literal \n, \t or \" right before a key or
// around an assignment. Every planted secret is still found there, with
// the secret's exact bytes (issue 31 #7).
func TestFindsInJSONEscapedText(t *testing.T) {
	for _, p := range plants() {
		if strings.ContainsAny(p.secret, "\n\"\\") {
			continue // changed by the escaping itself: covered by the private-key plants
		}
		for _, sep := range []string{"\n", "\t", "\r\n", "\n\n"} {
			text := "first line" + sep + strings.Replace(p.context, "%s", p.secret, 1) + sep + "last"
			b, _ := json.Marshal(text)
			inner := string(b[1 : len(b)-1]) // the JSON string's body: \n, \t and \" as escapes
			ms := Default.FindString(inner)
			found := false
			for _, m := range ms {
				if m.Kind == p.kind && inner[m.Start:m.End] == p.secret {
					found = true
				}
			}
			if !found {
				t.Errorf("%s after %q in JSON text %q: matches %v", p.kind, sep, inner, ms)
			}
		}
	}
}

func TestEscapedAssignments(t *testing.T) {
	aws := fake(40, b64, 40)
	pw := "Xk9" + fake(41, alnum, 13)
	for _, c := range []struct{ text, kind, secret string }{
		{`{\"SecretAccessKey\": \"` + aws + `\", \"x\": 1}`, "aws-secret-access-key", aws},
		{`export AWS_SECRET_ACCESS_KEY=\"` + aws + `\"`, "aws-secret-access-key", aws},
		{`API_KEY=\"` + pw + `\"`, "password-assignment", pw},
		{`{\"client_secret\": \"` + pw + `\"}`, "password-assignment", pw},
		{`password: \'` + pw + `\'`, "password-assignment", pw},
	} {
		ms := Default.FindString(c.text)
		if len(ms) != 1 || ms[0].Kind != c.kind || c.text[ms[0].Start:ms[0].End] != c.secret {
			t.Errorf("%q: %v, want one %s", c.text, ms, c.kind)
		}
	}
	// An escape is not a word: a \n before "desk-..." still is no key.
	for _, s := range []string{`x\\nsk-` + strings.Repeat("a1", 20), `a\nbsk-` + strings.Repeat("a1", 20)} {
		if ms := Default.FindString(s); len(ms) != 0 {
			t.Errorf("%q: %v, want none", s, ms)
		}
	}
}

// Blackbox's rules keep JS's \b exactly (verify finds what Blackbox
// finds): there the n of a \n escape is a word byte.
func TestBlackboxKeepsJSBoundary(t *testing.T) {
	key := "sk-" + fake(42, alnum, 48)
	if k := Blackbox.UserData.Kinds([]byte(`line\n` + key)); len(k) != 0 {
		t.Errorf("Blackbox found %v after \\n", k)
	}
	if k := Blackbox.UserData.Kinds([]byte(`line ` + key)); len(k) != 1 {
		t.Errorf("Blackbox found %v after a space", k)
	}
	if ms := Default.FindString(`line\n` + key); len(ms) != 1 {
		t.Errorf("Default found %v after \\n", ms)
	}
}
