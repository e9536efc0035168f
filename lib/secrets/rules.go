package secrets

import (
	"bytes"
)

// The Anthropic and OpenAI key shapes, shared by Default and by Blackbox's
// strong set (the patterns it applies inside user data).
const (
	anthropicKey = `sk-ant-[A-Za-z0-9_-]{20,}`  // any sk-ant- credential: api03, admin01, oat01, ort01
	openAIProj   = `sk-proj-[A-Za-z0-9_-]{20,}` // project keys
	openAIKey    = `sk-[A-Za-z0-9_-]{32,}`      // legacy and other sk- keys; needs a word start
	bearerToken  = `Bearer` + jsSpace + `+[A-Za-z0-9._~+/=-]{16,}`
	// escQuote is a quote, or a quote escaped inside JSON text (\").
	escQuote = `(?:\\?["'])`
	jsSpace  = `[\t\n\v\f\r \x{00A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]`
)

// Default is the general rule set: the well-known credential shapes
// (the gitleaks rules for these providers, rewritten), plus passwords in
// URLs and in assignments. See the rule docs for each.
var Default = lazySet(DefaultRules)

// DefaultRules returns fresh copies of Default's rules, to extend or filter.
func DefaultRules() []*Rule {
	return []*Rule{
		{
			Kind:     "anthropic-api-key",
			Doc:      "Anthropic API, admin and OAuth keys: sk-ant- then 20 or more of [A-Za-z0-9_-]",
			Keywords: []string{"sk-ant-"},
			Expr:     anthropicKey,
		},
		{
			Kind: "openai-api-key",
			Doc: "OpenAI keys: sk-proj-, sk-svcacct-, sk-admin- then 20 or more of [A-Za-z0-9_-]; " +
				"or at a word start sk- then 32 or more (legacy keys, and other providers' sk- keys) with a digit",
			Keywords:  []string{"sk-"},
			Expr:      openAIProj + `|sk-(?:svcacct|admin)-[A-Za-z0-9_-]{20,}|` + openAIKey,
			WordStart: true,
			Valid:     hasDigit,
		},
		{
			Kind: "aws-access-key-id",
			Doc: "AWS access key ids: AKIA, ASIA, ABIA, ACCA or A3T? then 16 of [A-Z0-9], a whole word, " +
				"entropy of 3 bits or more, not the documentation's ...EXAMPLE",
			Keywords:   []string{"AKIA", "ASIA", "ABIA", "ACCA", "A3T"},
			Expr:       `(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`,
			WordStart:  true,
			MinEntropy: 3,
			Valid:      func(s []byte) bool { return !bytes.HasSuffix(s, []byte("EXAMPLE")) },
		},
		{
			Kind: "aws-secret-access-key",
			Doc: "AWS secret access keys: 40 of [A-Za-z0-9/+] assigned to a name with aws and secret " +
				"(AWS_SECRET_ACCESS_KEY=, aws_secret_access_key =) or to SecretAccessKey (JSON of aws sts)",
			Keywords: []string{"aws", "secretaccesskey", "secret_access_key"},
			Expr: `(?i:aws[\w.-]{0,20}?(?:secret|private)[\w.-]{0,20}|secret_?access_?key)` +
				escQuote + `?\s*(?:=|:|:=|=>)\s*` + escQuote + `?(?P<secret>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`,
			WordStart:  true,
			MinEntropy: 3.5,
		},
		{
			Kind: "github-token",
			Doc: "GitHub tokens: ghp_, gho_, ghu_, ghs_, ghr_ then 36 of [A-Za-z0-9]; " +
				"fine-grained github_pat_ then 82 of [A-Za-z0-9_]",
			Keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
			Expr:     `gh[pousr]_[A-Za-z0-9]{36}\b|github_pat_\w{82}\b`,
		},
		{
			Kind: "gitlab-token",
			Doc: "GitLab tokens: glpat-, gldt-, glrt-, glptt-, glcbt-, glimt-, glft-, glsoat-, gloas-, glagent- " +
				"then 20 or more of [A-Za-z0-9_.-]; runner registration tokens GR1348941 then 20 or more",
			Keywords: []string{"glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glimt-", "glft-", "glsoat-",
				"gloas-", "glagent-", "GR1348941"},
			Expr:  `(?:gl(?:pat|dt|rt|ptt|cbt|imt|ft|soat|oas|agent)-|GR1348941)[A-Za-z0-9_.-]{20,}`,
			Valid: hasDigit,
		},
		{
			Kind: "slack-token",
			Doc: "Slack tokens: xoxb-, xoxp-, xoxa-, xoxo-, xoxs-, xoxr-, xoxe- then 10 or more of [A-Za-z0-9-] " +
				"with a digit; app tokens xapp-N-; config tokens xoxe.xoxp-",
			Keywords: []string{"xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxs-", "xoxr-", "xoxe-", "xoxe.", "xapp-"},
			Expr:     `xox[bpaosre]-[A-Za-z0-9-]{10,}|xoxe\.xox[bp]-[0-9]-[A-Za-z0-9]{20,}|xapp-[0-9]-[A-Za-z0-9-]{10,}`,
			Valid:    hasDigit,
		},
		{
			Kind:     "slack-webhook-url",
			Doc:      "Slack incoming webhooks: hooks.slack.com/services/, /workflows/ or /triggers/ then the secret path",
			Keywords: []string{"hooks.slack.com/"},
			Expr:     `hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9+/_-]{20,})`,
		},
		{
			Kind: "stripe-key",
			Doc: "Stripe secret and restricted keys: sk_ or rk_, then live_, test_ or prod_, then 10 or more of " +
				"[A-Za-z0-9]; webhook secrets whsec_ then 24 or more",
			Keywords:  []string{"sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_", "whsec_"},
			Expr:      `[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9+/=]{24,}`,
			WordStart: true,
		},
		{
			Kind:     "google-api-key",
			Doc:      "Google API keys: AIza then 35 of [A-Za-z0-9_-]",
			Keywords: []string{"AIza"},
			Expr:     `AIza[A-Za-z0-9_-]{35}\b`,
		},
		{
			Kind:      "npm-token",
			Doc:       "npm access tokens: npm_ then 36 of [A-Za-z0-9]",
			Keywords:  []string{"npm_"},
			Expr:      `npm_[A-Za-z0-9]{36}\b`,
			WordStart: true,
			Valid:     hasDigit,
		},
		{
			Kind: "jwt",
			Doc: "JSON Web Tokens: eyJ, a base64url header, a dot, eyJ and a payload of 10 or more each, a dot, " +
				"and the signature (possibly empty)",
			Keywords:  []string{"eyJ"},
			Expr:      `eyJ[A-Za-z0-9_-]{10,}={0,2}\.eyJ[A-Za-z0-9_-]{10,}={0,2}\.[A-Za-z0-9_-]*={0,2}`,
			WordStart: true,
		},
		{
			Kind: "private-key",
			Doc: "PEM private key blocks (RSA, EC, DSA, OPENSSH, PGP, encrypted, PKCS#8): BEGIN ... PRIVATE KEY " +
				"through the END line; a block cut short (head of a key file) to the end of its base64",
			Keywords: []string{"-----BEGIN"},
			Span:     16 << 10,
			Expr: `-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----` +
				`(?:[\s\S]{32,}?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,-]{32,})`,
		},
		{
			Kind: "url-credentials",
			Doc: "the password of a URL with user info (scheme://user:password@host); placeholders such as " +
				"$VAR, ${VAR}, <password>, *** and the words password, pass, secret are not secrets",
			Keywords: []string{"://"},
			Expr:     `://[^\s/:@"'<>\[\]]{0,128}:(?P<secret>[^\s/@"'<>\[\]]{3,128})@[A-Za-z0-9][A-Za-z0-9.-]*`,
			Valid:    notPlaceholder,
		},
		{
			Kind: "bearer-token",
			Doc:  "HTTP bearer credentials: Bearer, spaces, then 16 or more token characters with a digit and entropy of 3 bits or more",
			// The rule before the Blackbox one: case-insensitive, the token alone is the secret.
			Keywords:   []string{"bearer"},
			Expr:       `(?i:bearer)\s+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)`,
			WordStart:  true,
			MinEntropy: 3,
			Valid:      hasDigit,
		},
		{
			Kind: "password-assignment",
			Doc: "a value of 8 or more characters assigned (=, :, :=, =>) to a name with password, passwd, pwd, " +
				"passphrase, secret, token, api_key, access_key, auth_key, credential or private_key in it; the " +
				"value needs a letter and a digit and 3.5 bits of entropy per byte, and must not be a reference " +
				"($VAR, ${VAR}, <...>, {{...}}, process.env..., os.environ...)",
			Keywords: []string{"password", "passwd", "pwd", "passphrase", "secret", "token", "api_key", "apikey",
				"api-key", "access_key", "accesskey", "auth_key", "authkey", "credential", "private_key"},
			Expr: `(?i:password|passwd|pwd|passphrase|secret|token|api[_-]?key|access_?key|auth_?key|credential|private_?key)` +
				`[\w.-]{0,20}` + escQuote + `?[ \t]*(?:=|:|:=|=>)[ \t]*` + escQuote + `?(?P<secret>[^\s"'` + "`" + `;,&|<>(){}\[\]\\]{8,200})`,
			MinEntropy: 3.5,
			Valid:      assignedValue,
			guard:      assignmentAhead,
		},
	}
}

func hasDigit(s []byte) bool { return bytes.ContainsAny(s, "0123456789") }

func hasLetter(s []byte) bool {
	for _, c := range s {
		if 'a' <= fold[c] && fold[c] <= 'z' {
			return true
		}
	}
	return false
}

// placeholders are the values that stand for a password in examples.
var placeholders = [][]byte{[]byte("password"), []byte("pass"), []byte("passwd"), []byte("pwd"),
	[]byte("secret"), []byte("token"), []byte("changeme")}

func notPlaceholder(s []byte) bool {
	switch s[0] {
	case '$', '<', '{', '%', '[':
		return false
	}
	if len(bytes.Trim(s, "*xX.")) == 0 {
		return false
	}
	for _, p := range placeholders {
		if bytes.EqualFold(s, p) {
			return false
		}
	}
	return true
}

// referencePrefixes start values that name a secret rather than hold one.
var referencePrefixes = [][]byte{[]byte("process.env"), []byte("os.environ"), []byte("os.getenv"),
	[]byte("env."), []byte("secrets."), []byte("vault:"), []byte("file:"), []byte("http://"), []byte("https://")}

func assignedValue(s []byte) bool {
	if !notPlaceholder(s) || !hasDigit(s) || !hasLetter(s) {
		return false
	}
	for _, p := range referencePrefixes {
		if len(s) >= len(p) && bytes.EqualFold(s[:len(p)], p) {
			return false
		}
	}
	return true
}

// assignmentAhead is the password-assignment rule's guard: a name, an
// operator, and 8 value bytes follow. Most hits of "token" are prose or
// "input_tokens": 123 and stop here, before the regexp.
func assignmentAhead(b []byte) bool {
	i := 0
	for i < len(b) && i < 48 && (isWord(b[i]) || b[i] == '.' || b[i] == '-') {
		i++
	}
	if i+1 < len(b) && b[i] == '\\' && (b[i+1] == '"' || b[i+1] == '\'') {
		i++ // a quote escaped in JSON text
	}
	if i < len(b) && (b[i] == '"' || b[i] == '\'') {
		i++
	}
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	if i == len(b) || b[i] != '=' && b[i] != ':' {
		return false
	}
	for i < len(b) && (b[i] == '=' || b[i] == ':' || b[i] == '>') {
		i++
	}
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '"' || b[i] == '\'' ||
		b[i] == '\\' && i+1 < len(b) && (b[i+1] == '"' || b[i+1] == '\'')) {
		i++
	}
	n := 0
	for ; i < len(b) && n < 8; i++ {
		switch b[i] {
		case ' ', '\t', '\n', '\r', '"', '\'', '`', ';', ',', '&', '|', '<', '>', '(', ')', '{', '}', '[', ']', '\\':
			return false
		}
		n++
	}
	return n == 8
}
