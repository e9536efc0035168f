package secrets

import (
	"strings"
)

// Blackbox holds Blackbox 0.2.x's own patterns (blackbox.md §3.3, §3.5),
// so that cc-cassette verify finds exactly what Blackbox finds. Kinds are
// Blackbox's labels (toolu_, sk-ant, bearer-token, ...), and Set.Kinds
// returns them in Blackbox's order. Boundaries and whitespace follow JS
// semantics: a word start is an ASCII one, and the space before a bearer
// token is any JS whitespace.
var Blackbox = struct {
	// Markers is the scan outside user data: provider ids, then full
	// credentials, then the env-var names.
	Markers *Set
	// UserData is the strong set used inside user data (toolInput,
	// result, error, inputSchema, text, content, systemPrompt).
	UserData *Set
	// Mask is what mask() replaces with [redacted] after the literal
	// secrets (see MaskBlackbox).
	Mask *Set
}{
	Markers: lazySet(func() []*Rule {
		return []*Rule{
			bb("toolu_", "toolu_", `toolu_[A-Za-z0-9]*[0-9]`, true),
			bb("msg_", "msg_", `msg_[A-Za-z0-9]*[0-9]`, true),
			bb("call_", "call_", `call_[A-Za-z0-9]{20}`, true),
			bb("chatcmpl-", "chatcmpl-", `chatcmpl-[A-Za-z0-9]{8}`, true),
			bb("resp_", "resp_", `resp_[A-Za-z0-9]{16}`, true),
			bb("sk-ant", "sk-ant", `sk-ant`, false),
			bb("sk-proj", "sk-proj-", `sk-proj-`, false),
			bb("sk-", "sk-", `sk-[A-Za-z0-9_-]{20}`, true),
			bb("bearer-token", "Bearer", bearerToken, true),
			bb("ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY", `ANTHROPIC_API_KEY`, false),
			bb("OPENAI_API_KEY", "OPENAI_API_KEY", `OPENAI_API_KEY`, false),
		}
	}),
	UserData: lazySet(func() []*Rule {
		return []*Rule{
			bb("sk-ant", "sk-ant-", anthropicKey, false),
			bb("sk-proj", "sk-proj-", openAIProj, false),
			bb("sk-", "sk-", openAIKey, true),
			bb("bearer-token", "Bearer", bearerToken, true),
		}
	}),
	Mask: lazySet(func() []*Rule {
		return []*Rule{
			bb("sk-ant", "sk-ant", `sk-ant[A-Za-z0-9_-]+`, false),
			bb("sk-proj", "sk-proj-", `sk-proj-[A-Za-z0-9_-]+`, false),
			bb("sk-", "sk-", `sk-[A-Za-z0-9_-]{20,}`, true),
			bb("bearer-token", "Bearer", bearerToken, true),
		}
	}),
}

// bb builds a Blackbox rule: the label is the kind and the keyword is the
// pattern's literal start (TestBuiltinExprs holds them to it), so that
// the pattern is compiled only when used.
func bb(label, kw, pattern string, wordStart bool) *Rule {
	return &Rule{
		Kind:       label,
		Doc:        "Blackbox's " + label + " pattern",
		Keywords:   []string{kw},
		Expr:       pattern,
		WordStart:  wordStart,
		jsBoundary: true,
		Span:       1 << 10,
	}
}

// MaskBlackbox is Blackbox's mask(): every occurrence of each known
// literal secret of 4 bytes or more becomes [redacted], then every match
// of Blackbox.Mask does.
func MaskBlackbox(text string, known ...string) string {
	for _, k := range known {
		if len(k) >= 4 {
			text = strings.ReplaceAll(text, k, "[redacted]")
		}
	}
	out, _ := Blackbox.Mask.ReplaceFunc([]byte(text), func(Match) string { return "[redacted]" })
	return string(out)
}
