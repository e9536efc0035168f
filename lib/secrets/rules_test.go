package secrets

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b64    = alnum + "+/"
	urlb64 = alnum + "_-"
)

// fake returns n random bytes of alphabet, the same for the same seed:
// planted secrets are built at run time, so that no credential-shaped
// literal sits in the source.
func fake(seed uint64, alphabet string, n int) string {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	// A digit and a letter in every value, as real keys have.
	if n >= 2 && strings.ContainsAny(alphabet, "0123456789") {
		b[n/2], b[n/2+1] = '7', 'k'
		if !strings.ContainsAny(alphabet, "k") {
			b[n/2+1] = 'K'
		}
	}
	return string(b)
}

// Planted secrets of every kind, each with its kind and a line around it
// (%s is the secret; the secret part alone must be reported).
type plant struct {
	kind, secret, context string
}

func plants() []plant {
	pem := "-----BEGIN RSA PRIVATE KEY-----\n" + fake(20, b64, 64) + "\n" + fake(21, b64, 64) + "\n-----END RSA PRIVATE KEY-----"
	jwt := "eyJhbGciOiJIUzI1NiJ9." + "eyJ" + fake(30, urlb64, 40) + "." + fake(31, urlb64, 43)
	return []plant{
		{"anthropic-api-key", "sk-ant-api03-" + fake(1, urlb64, 93) + "AA", "export ANTHROPIC_API_KEY=%s"},
		{"anthropic-api-key", "sk-ant-oat01-" + fake(2, urlb64, 60), `{"token":"%s"}`},
		{"openai-api-key", "sk-proj-" + fake(3, urlb64, 100), "OPENAI_API_KEY=%s"},
		{"openai-api-key", "sk-svcacct-" + fake(4, urlb64, 40), "key: %s"},
		{"openai-api-key", "sk-" + fake(5, alnum, 48), "openai.api_key = '%s'"},
		{"aws-access-key-id", "AKIA" + fake(6, upper, 16), "aws_access_key_id = %s"},
		{"aws-access-key-id", "ASIA" + fake(7, upper, 16), `"AccessKeyId": "%s",`},
		{"aws-secret-access-key", fake(8, b64, 40), "aws_secret_access_key = %s"},
		{"aws-secret-access-key", fake(9, b64, 40), "export AWS_SECRET_ACCESS_KEY=%s"},
		{"aws-secret-access-key", fake(10, b64, 40), `"SecretAccessKey": "%s",`},
		{"github-token", "ghp_" + fake(11, alnum, 36), "git remote set-url origin https://x:%s@github.com/a/b"},
		{"github-token", "github_pat_" + fake(12, alnum+"_", 82), "GH_TOKEN=%s gh pr list"},
		{"gitlab-token", "glpat-" + fake(13, urlb64, 20), "PRIVATE-TOKEN: %s"},
		{"gitlab-token", "GR1348941" + fake(14, urlb64, 20), "--registration-token %s"},
		{"slack-token", "xoxb-" + fake(15, "0123456789", 12) + "-" + fake(16, "0123456789", 13) + "-" + fake(17, alnum, 24), "SLACK_BOT_TOKEN=%s"},
		{"slack-token", "xapp-1-" + fake(18, alnum, 30), "app token %s"},
		{"slack-webhook-url", "T0" + fake(19, upper, 8) + "/B0" + fake(22, upper, 8) + "/" + fake(23, alnum, 24), "curl https://hooks.slack.com/services/%s -d @msg.json"},
		{"stripe-key", "sk_live_" + fake(24, alnum, 24), "stripe.api_key = \"%s\""},
		{"stripe-key", "rk_test_" + fake(25, alnum, 24), "%s"},
		{"stripe-key", "whsec_" + fake(26, alnum, 32), "STRIPE_WEBHOOK_SECRET=%s"},
		{"google-api-key", "AIza" + fake(27, urlb64, 35), "https://maps.googleapis.com/maps/api?key=%s&q=1"},
		{"npm-token", "npm_" + fake(28, alnum, 36), "//registry.npmjs.org/:_authToken=%s"},
		{"jwt", jwt, "Cookie: session=%s; Path=/"},
		{"private-key", pem, "$ cat id_rsa\n%s\n$ "},
		{"private-key", strings.ReplaceAll(pem, "\n", `\n`), `{"private_key": "%s\n", "client_email": "x@y.iam"}`},
		{"private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + fake(29, b64, 70) + "\n" + fake(32, b64, 30), "$ head -3 ~/.ssh/id_ed25519\n%s"},
		{"url-credentials", "hunter2" + fake(33, alnum, 6), "DATABASE_URL=postgres://app:%s@db.internal:5432/app"},
		{"url-credentials", "s3cr3t!", "redis://:%s@localhost:6379/0"},
		{"bearer-token", fake(34, urlb64, 40), `curl -H "Authorization: Bearer %s" https://api.example.com`},
		{"password-assignment", "Xk9" + fake(35, alnum, 13), "DB_PASSWORD=%s"},
		{"password-assignment", fake(36, alnum, 20), `"client_secret": "%s"`},
		{"password-assignment", "a8F!" + fake(37, alnum, 10), "password: '%s'"},
	}
}

func TestDefaultFindsEveryPlant(t *testing.T) {
	kinds := map[string]bool{}
	for _, p := range plants() {
		kinds[p.kind] = true
		text := strings.Replace(p.context, "%s", p.secret, 1)
		ms := Default.FindString(text)
		if len(ms) != 1 {
			t.Errorf("%s in %q: %d matches %v, want 1", p.kind, p.context, len(ms), ms)
			continue
		}
		m := ms[0]
		if m.Kind != p.kind || text[m.Start:m.End] != p.secret {
			t.Errorf("%s in %q: got %v = %q", p.kind, p.context, m, text[m.Start:m.End])
		}
		out, _ := Default.ReplaceString(text)
		if strings.Contains(out, p.secret) {
			t.Errorf("%s: replaced text still holds the secret", p.kind)
		}
		if want := strings.Replace(p.context, "%s", "[REDACTED:"+p.kind+"]", 1); out != want {
			t.Errorf("%s: replaced\n got %q\nwant %q", p.kind, out, want)
		}
	}
	for _, r := range Default.Rules() {
		if !kinds[r.Kind] {
			t.Errorf("rule %s has no planted secret", r.Kind)
		}
		if r.Doc == "" {
			t.Errorf("rule %s has no doc", r.Kind)
		}
	}
}

// TestDefaultNegatives: text that looks close to a secret but is not one.
func TestDefaultNegatives(t *testing.T) {
	for _, s := range []string{
		"sk-ant-short", // too short
		"desk-antenna and task-" + strings.Repeat("a1", 20),    // no word start before sk-
		"sk-" + strings.Repeat("abcdefgh", 5),                  // sk- without a digit
		"AKIAIOSFODNN7EXAMPLE",                                 // the AWS docs' example key
		"AKIAXXXXXXXXXXXXXXXX",                                 // low entropy
		"TODAYINASIAASACKOFRICEFELLOVER",                       // not a word of 20
		"ghp_" + strings.Repeat("a", 35),                       // one short
		"glpat-" + strings.Repeat("x", 20),                     // no digit
		"xoxo-hugs-and-kisses",                                 // no digit
		"AIza-short",                                           // too short
		"npm_" + strings.Repeat("b", 36),                       // no digit
		"eyJhbGciOiJIUzI1NiJ9 alone",                           // a header, no payload
		"-----BEGIN PUBLIC KEY-----\n" + fake(1, b64, 64),      // public
		"-----BEGIN CERTIFICATE-----\n" + fake(2, b64, 64),     // certificate
		"postgres://user:password@localhost/db",                // placeholder
		"postgres://user:${DB_PASSWORD}@localhost/db",          // reference
		"https://user:***@example.com",                         // masked
		"ssh://git@github.com:22/a/b",                          // no password
		"https://example.com:8080/path@v2",                     // port, not user info
		"Authorization: Bearer $TOKEN",                         // reference
		"Authorization: Bearer abcdefghijklmnopqrst",           // no digit
		`"input_tokens":1234,"output_tokens":5678`,             // usage
		"password: string",                                     // a type
		"DB_PASSWORD=${DB_PASSWORD}",                           // reference
		"token = process.env.GITHUB_TOKEN2",                    // reference
		"api_key = getApiKey()",                                // a call
		"secret: aaaaaaaa11",                                   // low entropy
		"max_tokens=4096 tokens: 1024",                         // numbers
		"AWS_SECRET_ACCESS_KEY=" + strings.Repeat("ab", 20),    // low entropy
		"send_msg_to_user(toolu_abc) sk_live_short",            // too short
		"whsec_short and rk_live_ alone",                       // too short
		"the token is in ~/.config/gh/hosts.yml (oauth_token)", // no value
	} {
		if ms := Default.FindString(s); len(ms) != 0 {
			t.Errorf("%q: unexpected %v", s, ms)
		}
	}
}

func TestReplaceLeavesCleanTextAlone(t *testing.T) {
	b := []byte("nothing to see here")
	out, ms := Default.Replace(b)
	if len(ms) != 0 || &out[0] != &b[0] {
		t.Errorf("clean text was copied or matched: %v", ms)
	}
}

func TestOverlapKeepsEarlierRule(t *testing.T) {
	// An sk-ant key is also an sk- key of 32+: the Anthropic rule wins.
	k := "sk-ant-api03-" + fake(1, urlb64, 60)
	ms := Default.FindString("x " + k)
	if len(ms) != 1 || ms[0].Kind != "anthropic-api-key" {
		t.Fatalf("got %v", ms)
	}
}

func TestLongSecretPastSpan(t *testing.T) {
	// A secret longer than the rule's window is still matched whole.
	k := "sk-proj-" + fake(3, urlb64, 2000)
	ms := Default.FindString("k=" + k + " end")
	if len(ms) != 1 || ms[0].End-ms[0].Start != len(k) {
		t.Fatalf("got %v, want one match of %d bytes", ms, len(k))
	}
}

func TestMatchStringHidesSecret(t *testing.T) {
	k := "ghp_" + fake(11, alnum, 36)
	ms := Default.FindString(k)
	if len(ms) != 1 || strings.Contains(ms[0].String(), k[4:]) {
		t.Fatalf("got %v", ms)
	}
}

func TestManySecretsInOneText(t *testing.T) {
	var b strings.Builder
	var want []string
	for i, p := range plants() {
		b.WriteString(strings.Repeat("filler words here ", i%3))
		b.WriteString(strings.Replace(p.context, "%s", p.secret, 1))
		b.WriteString("\n")
		want = append(want, p.kind)
	}
	ms := Default.FindString(b.String())
	var got []string
	for _, m := range ms {
		got = append(got, m.Kind)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("kinds\n got %v\nwant %v", got, want)
	}
}

func TestNewSetErrors(t *testing.T) {
	if _, err := NewSet(&Rule{Kind: "x"}); err == nil {
		t.Error("rule without a pattern accepted")
	}
	r := Default.Rules()[0]
	if _, err := NewSet(&Rule{Kind: "x", Expr: r.Expr, Keywords: []string{"ab"}}); err == nil {
		t.Error("2-byte keyword accepted")
	}
}

func TestEntropy(t *testing.T) {
	for _, c := range []struct {
		s        string
		min, max float64
	}{
		{"aaaaaaaa", 0, 0},
		{"abababab", 1, 1},
		{"0123456789abcdef", 4, 4},
	} {
		if e := Entropy([]byte(c.s)); e < c.min-1e-9 || e > c.max+1e-9 {
			t.Errorf("Entropy(%q) = %v", c.s, e)
		}
	}
}

// TestKeywordScanEveryAlignment: the two-byte-stride scan finds every
// keyword at odd and even starts, at the ends of the text, in any case.
func TestKeywordScanEveryAlignment(t *testing.T) {
	for _, set := range []*Set{Default, Blackbox.Markers} {
		for ki, k := range set.keywords {
			for pad := 0; pad < 4; pad++ {
				for _, tail := range []string{"", "x", "xy"} {
					for _, lit := range []string{string(k.lit), strings.ToUpper(string(k.lit))} {
						text := strings.Repeat("q", pad) + lit + tail
						found := false
						set.eachHit([]byte(text), func(pos, kw int) bool {
							found = found || pos == pad && kw == ki
							return true
						})
						if !found {
							t.Errorf("keyword %q not found in %q", k.lit, text)
						}
					}
				}
			}
		}
	}
}

// TestBuiltinExprs compiles every built-in rule's expression (they are
// compiled only when first used), and holds each Blackbox rule's keyword
// to its pattern's literal start.
func TestBuiltinExprs(t *testing.T) {
	for _, r := range DefaultRules() {
		if r.Expr == "" {
			continue
		}
		if _, err := regexp.Compile(r.Expr); err != nil {
			t.Errorf("%s: %v", r.Kind, err)
		}
	}
	for _, s := range []*Set{Blackbox.Markers, Blackbox.UserData, Blackbox.Mask} {
		for _, r := range s.Rules() {
			re, err := regexp.Compile(r.Expr)
			if err != nil {
				t.Fatalf("%s: %v", r.Kind, err)
			}
			if lit, _ := re.LiteralPrefix(); len(r.Keywords) != 1 || r.Keywords[0] != lit {
				t.Errorf("%s: keyword %q, the pattern starts with %q", r.Kind, r.Keywords, lit)
			}
		}
	}
}
