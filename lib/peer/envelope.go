package peer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const envelopeTag = "cross-session-message"

// Envelope wraps body the way Claude Code 2.1.328 senders do:
//
//	<cross-session-message from="…" from-name="…" from-mode="…">
//	body
//	</cross-session-message>
//
// Attributes come in that order, each only when present. The receiver
// accepts an envelope only in this canonical form (it re-renders what it
// parsed and compares), so the name is cleaned here exactly as the
// receiver would clean it (CleanName), and closing tags inside the body are
// defused (EscapeBody). An address with characters outside the allowed
// set, or an unknown mode, is left out.
func Envelope(from, name, mode, body string) string {
	var b strings.Builder
	b.WriteString("<" + envelopeTag)
	if from != "" && validAttrAddress(from) {
		b.WriteString(` from="` + from + `"`)
	}
	if n := CleanName(name); n != "" {
		b.WriteString(` from-name="` + n + `"`)
	}
	if mode == ModeBypass || mode == ModePrompting {
		b.WriteString(` from-mode="` + mode + `"`)
	}
	b.WriteString(">\n")
	b.WriteString(EscapeBody(body))
	b.WriteString("\n</" + envelopeTag + ">")
	return b.String()
}

// MaxNameRunes is how many code points of a display name survive; a
// longer name is cut and gets "…".
const MaxNameRunes = 64

// CleanName is the receiver's rule for a from-name: drop `"`, `<` and `>`,
// drop control, format, surrogate and line/paragraph separator characters,
// trim white space, and cut to 64 code points plus "…".
func CleanName(name string) string {
	name = strings.ToValidUTF8(name, "\uFFFD")
	name = strings.Map(func(r rune) rune {
		switch {
		case r == '"' || r == '<' || r == '>':
			return -1
		case unicode.In(r, unicode.Cc, unicode.Cf, unicode.Cs, unicode.Zl, unicode.Zp):
			return -1
		}
		return r
	}, name)
	name = strings.TrimFunc(name, unicode.IsSpace)
	if utf8.RuneCountInString(name) > MaxNameRunes {
		runes := []rune(name)
		name = string(runes[:MaxNameRunes]) + "…"
	}
	return name
}

// EscapeBody defuses anything in body that the receiver would read as the
// envelope's closing tag: a `<` (not already followed by `\`), then
// punctuation, a `/`, punctuation, and the tag name in any case with `_`
// or a dash for `-` and invisible characters between the letters, and no
// name character after it. Such a `<` becomes `<\`, as in Claude Code.
// Look-alike characters for `<` and `/` (fullwidth forms) are not
// recognised here; a body using them keeps the message plain text for the
// receiver, which is harmless.
func EscapeBody(body string) string {
	if !strings.Contains(body, "<") {
		return body
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(body); i++ {
		if body[i] != '<' || !closingTagAt(body[i+1:]) {
			continue
		}
		b.WriteString(body[last : i+1])
		b.WriteByte('\\')
		last = i + 1
	}
	if last == 0 {
		return body
	}
	b.WriteString(body[last:])
	return b.String()
}

// closingTagAt reports whether s (the text after a `<`) continues as a
// closing envelope tag by the receiver's pattern.
func closingTagAt(s string) bool {
	if strings.HasPrefix(s, `\`) {
		return false
	}
	s = strings.TrimLeftFunc(s, func(r rune) bool { return isFiller(r) && r != '/' })
	if !strings.HasPrefix(s, "/") {
		return false
	}
	s = strings.TrimLeftFunc(s[1:], isFiller)
	for i, want := range envelopeTag {
		if i > 0 {
			s = strings.TrimLeftFunc(s, isInvisible)
		}
		r, size := utf8.DecodeRuneInString(s)
		if size == 0 {
			return false
		}
		if want == '-' {
			if !isDashLike(r) {
				return false
			}
		} else if !foldEq(r, want) {
			return false
		}
		s = s[size:]
	}
	r, size := utf8.DecodeRuneInString(s)
	return size == 0 || !isNameChar(r)
}

func isNameChar(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
}

// isFiller is anything but a name character or an angle bracket.
func isFiller(r rune) bool { return !isNameChar(r) && r != '<' && r != '>' }

func isInvisible(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Mn) || r == '\u2028' || r == '\u2029'
}

func isDashLike(r rune) bool {
	return unicode.In(r, unicode.Pc, unicode.Pd) || strings.ContainsRune("\u2017\u02cd\u07fa\u0640\u2212\u207b\u208b\u02d7\u2796\u2043\u30fc\uff70", r)
}

func foldEq(r, want rune) bool {
	for f := r; ; {
		if f == want {
			return true
		}
		f = unicode.SimpleFold(f)
		if f == r {
			return false
		}
	}
}
