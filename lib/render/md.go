package render

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/ccpipe/ccpipe/lib/extract"

	"github.com/ccpipe/ccpipe/lib/numfmt"
)

// mdSink writes GitHub-flavoured Markdown. Text from the transcript never
// shapes the page: prose has its '<' escaped (outside code) and its open
// fences closed, everything else goes in fences longer than any backtick
// run inside, or in code spans, or is escaped.
type mdSink struct {
	w        *bufio.Writer
	maxLines int // Options.MaxOutputLines
}

func (s *mdSink) p(parts ...string) {
	for _, p := range parts {
		s.w.WriteString(p)
	}
}

func (s *mdSink) head(m *Meta) {
	if m.N > 1 {
		s.p("\n---\n\n")
	}
	title := m.Title
	if title == "" {
		title = "Session " + m.SessionID
	}
	s.p("# ", mdInline(title), "\n\n")
	row := func(k, v string) {
		if v != "" {
			s.p("- **", k, ":** ", codeSpan(v), "\n")
		}
	}
	row("Session", m.SessionID)
	row("Directory", m.Cwd)
	row("Branch", m.GitBranch)
	if m.Start != "" {
		s.p("- **Started:** ", when(m.Start), "\n")
	}
	row("Claude Code", m.Version)
	s.p("\n[Contents](#contents-", fmt.Sprint(m.N), ")\n\n")
}

func (s *mdSink) prompt(p *promptView, depth int) {
	how, title, body, who := p.layout()
	switch how {
	case asNothing:
		return
	case asFold:
		s.details(title, false, func() { s.fence(body, "text") })
	case asLine:
		s.p("*", mdInline(title), "*\n\n")
	case asInterrupt:
		s.p("**⏹ ", mdInline(title), "** *", mdInline(who), "*\n\n")
	case asTask:
		s.p("**Task given to the subagent** *", mdInline(who), "*\n\n")
		s.quote(p.Text)
	default:
		s.p(`<a id="`, p.Anchor, "\"></a>\n\n## ", fmt.Sprint(p.N), ". ", mdInline(excerpt(p.Text, 80)), "\n\n*", mdInline(who), "*\n\n")
		s.quote(p.Text)
	}
	s.images(p.Images)
}

func (s *mdSink) images(imgs []Image) {
	for i, img := range imgs {
		s.p("![image ", fmt.Sprint(i+1), " (", img.MediaType, ")](")
		img.writeURI(s.w)
		s.p(")\n\n")
	}
}

// quote writes prose as a block quote.
func (s *mdSink) quote(text string) {
	for _, line := range strings.Split(mdProse(text), "\n") {
		if line == "" {
			s.p(">\n")
		} else {
			s.p("> ", line, "\n")
		}
	}
	s.p("\n")
}

func (s *mdSink) text(t string) { s.p(mdProse(t), "\n\n") }

func (s *mdSink) thinking(t string) {
	s.details("Thinking", false, func() { s.fence(t, "text") })
}

// details writes a collapsible block; summary is plain text.
func (s *mdSink) details(summary string, open bool, body func()) {
	s.detailsHTML(htmlEscape(summary), open, body)
}

var oneLine = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ")

func (s *mdSink) detailsHTML(summary string, open bool, body func()) {
	if open {
		s.p("<details open>")
	} else {
		s.p("<details>")
	}
	// One line: a line break in a transcript string (a tool name) would
	// let a blank line end the HTML block, and the rest read as Markdown.
	s.p("<summary>", oneLine.Replace(summary), "</summary>\n\n")
	body()
	s.p("</details>\n\n")
}

// fence writes text in a code fence longer than any backtick run in it.
func (s *mdSink) fence(text, lang string) {
	f := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	s.p(f, lang, "\n", text)
	if !strings.HasSuffix(text, "\n") {
		s.p("\n")
	}
	s.p(f, "\n\n")
}

func (s *mdSink) tool(c *call, depth int) error {
	head := "<b>" + htmlEscape(c.Name) + "</b>"
	if c.Summary != "" {
		head += " <code>" + htmlEscape(c.Summary) + "</code>"
	}
	head += htmlEscape(status(c))
	open := c.Kind != "quiet"
	var err error
	s.detailsHTML(head, open, func() {
		if c.Body != "" {
			s.fence(c.Body, c.Lang)
		}
		if c.Nested != nil {
			s.p("<details><summary>Subagent transcript</summary>\n\n")
			err = c.Nested()
			s.p("</details>\n\n")
		}
		s.result(c)
		s.images(c.Images)
	})
	return err
}

// result writes what a call gave back.
func (s *mdSink) result(c *call) {
	for _, p := range results(c) {
		switch {
		case p.path != "":
			s.p("*", mdInline(p.label), "* ", codeSpan(p.path), "\n\n")
		case p.text == "" && !p.bad:
			s.p("*", mdInline(p.label), "*\n\n")
		case p.prose:
			s.p("**", mdInline(p.label), "**\n\n", mdProse(p.text), "\n\n")
		default:
			s.p("**", mdInline(p.label), "**\n\n")
			head, rest, more := foldAt(p.text, s.maxLines)
			s.fence(head, "text")
			if more > 0 {
				s.details(moreLines(more, rest), false, func() { s.fence(rest, "text") })
			}
		}
	}
}

// status is the words after a call's name: exit code, error, refusal.
func status(c *call) string {
	var parts []string
	if c.Shell != nil && c.Shell.ExitCode != nil {
		parts = append(parts, fmt.Sprintf("exit %d", *c.Shell.ExitCode))
	}
	switch {
	case c.Denied != nil:
		parts = append(parts, "denied by "+c.Denied.By)
	case c.Interrupted:
		parts = append(parts, "interrupted")
	case c.IsError && (c.Shell == nil || c.Shell.ExitCode == nil):
		parts = append(parts, "error")
	case c.Result == nil:
		parts = append(parts, "no result")
	}
	if len(parts) == 0 {
		return ""
	}
	mark := ""
	if c.failed() {
		mark = "✗ "
	}
	return " · " + mark + strings.Join(parts, " · ")
}

func (s *mdSink) marker(m marker) {
	s.p("**⚠ ", mdInline(m.Title), "**")
	if m.Time != "" {
		s.p(" *", m.Time, "*")
	}
	s.p("\n\n")
	if m.Message != "" {
		s.fence(m.Message, "text")
	}
}

func (s *mdSink) divider(c *extract.Compaction) {
	s.p("---\n\n**Conversation compacted** *", mdInline(compactWords(c)), "*\n\n")
	if c.Summary != nil {
		s.details("Compaction summary", false, func() { s.fence(*c.Summary, "text") })
	}
}

func (s *mdSink) turn(t Tokens, depth int) {
	s.p("<sub>", tokenWords(t, mdInline), "</sub>\n\n")
}

func (s *mdSink) foot(m *Meta) {
	s.p(`<a id="contents-`, fmt.Sprint(m.N), "\"></a>\n\n## Contents\n\n")
	if m.Truncated {
		s.p("*The transcript could not be read to its end.*\n\n")
	}
	for i, e := range m.TOC {
		s.p(fmt.Sprint(i+1), ". [", mdInline(e.Text), "](#", e.Anchor, ")")
		if e.Time != "" {
			s.p(" ", e.Time)
		}
		s.p("\n")
	}
	if m.TOCMore > 0 {
		s.p("\n*… and ", fmt.Sprint(m.TOCMore), " more prompts.*\n")
	}
	if len(m.TOC) == 0 {
		s.p("*No prompts.*\n")
	}
	s.p("\n", summaryWords(m, mdInline), "\n")
}

func (s *mdSink) end(int) {}

// compactWords says what a compaction did.
func compactWords(c *extract.Compaction) string {
	var parts []string
	if c.Trigger != nil {
		parts = append(parts, *c.Trigger)
	}
	if c.PreTokens != nil {
		parts = append(parts, numfmt.Thousands(*c.PreTokens)+" tokens before")
	}
	if c.PostTokens != nil {
		parts = append(parts, numfmt.Thousands(*c.PostTokens)+" after")
	}
	if t := clock(c.Timestamp); t != "" {
		parts = append(parts, t)
	}
	return strings.Join(parts, " · ")
}

// tokenWords is a turn's or a session's usage line; esc escapes the
// model names, which come from the transcript.
func tokenWords(t Tokens, esc func(string) string) string {
	calls := "API calls"
	if t.Messages == 1 {
		calls = "API call"
	}
	s := fmt.Sprintf("%d %s · input %s · output %s · cache read %s · cache write %s", t.Messages, calls,
		numfmt.Thousands(t.Input), numfmt.Thousands(t.Output), numfmt.Thousands(t.CacheRead), numfmt.Thousands(t.CacheCreation))
	return s + " · " + costWords(t, esc)
}

// costWords is the cost as cc-extract usage --cost prices it, saying
// which models were priced at assumed prices and how many calls could not
// be priced, never a silent $0.
func costWords(t Tokens, esc func(string) string) string {
	if t.Unpriced == t.Messages {
		return "cost unknown"
	}
	s := numfmt.Dollars(t.USD)
	if len(t.Assumed) > 0 {
		s += " (assumed: " + esc(strings.Join(t.Assumed, ", ")) + " priced as the default model)"
	}
	if t.Unpriced > 0 {
		s += fmt.Sprintf(" + %d unpriced", t.Unpriced)
	}
	return s
}

func summaryWords(m *Meta, esc func(string) string) string {
	s := plural(m.Prompts, "prompt") + " · " + plural(m.Tools, "tool call") + " · " + plural(m.Failures, "failure")
	if m.Tokens.Messages > 0 {
		s += " · " + tokenWords(m.Tokens, esc)
	}
	if m.Start != "" {
		s += " · " + when(m.Start) + " to " + when(m.End)
	}
	return s
}

// longestRun is the longest run of c in s.
func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// codeSpan writes s as inline code on one line.
func codeSpan(s string) string {
	s = strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
	f := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || s == "" {
		s = " " + s + " "
	}
	return f + s + f
}

// mdInline escapes s to read as plain text on one line of Markdown.
func mdInline(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\n', '\r':
			b.WriteByte(' ')
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '#', '|', '!', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdProse passes Markdown prose through, made harmless: '<' outside code
// is escaped (no raw HTML, no closing of the page's <details>), and a
// fence left open is closed so it cannot swallow the rest of the page.
func mdProse(s string) string {
	s = strings.TrimRight(s, "\n ")
	var b strings.Builder
	fence := "" // the open fence's marker, "" outside one
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		line = strings.TrimSuffix(line, "\r")
		if f := fenceOf(line); f != "" {
			switch {
			case fence == "":
				fence = f
			case f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), f[:1])) == "":
				fence = ""
			}
			b.WriteString(line)
			continue
		}
		if fence != "" {
			b.WriteString(line)
			continue
		}
		escapeOutsideCode(&b, line)
	}
	if fence != "" {
		b.WriteString("\n" + fence)
	}
	return b.String()
}

// fenceOf returns the fence marker a line opens or closes with, if any.
func fenceOf(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return t[:n]
}

// escapeOutsideCode writes line with '<' escaped except in code spans.
func escapeOutsideCode(b *strings.Builder, line string) {
	for i := 0; i < len(line); {
		c := line[i]
		if c == '`' {
			n := 0
			for i+n < len(line) && line[i+n] == '`' {
				n++
			}
			if end := closingRun(line[i+n:], n); end >= 0 {
				b.WriteString(line[i : i+n+end+n])
				i += n + end + n
				continue
			}
			b.WriteString(line[i : i+n])
			i += n
			continue
		}
		if c == '<' {
			b.WriteString("&lt;")
		} else {
			b.WriteByte(c)
		}
		i++
	}
}

// closingRun finds a run of exactly n backticks in s; -1 when none.
func closingRun(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
