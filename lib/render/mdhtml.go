package render

import (
	"bufio"
	"strings"
)

// mdHTML writes a safe subset of Markdown as HTML: paragraphs, fenced
// code, headings, lists, block quotes, tables, and inline code and bold.
// It never passes HTML through: every character of the text is escaped,
// and the tags are the renderer's own. Links show their text and target
// as text (no href: a page from a transcript must not send anyone
// anywhere).
func mdHTML(w *bufio.Writer, text string) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	open := "" // the open block: p, ul, ol, quote, table
	closeBlock := func() {
		switch open {
		case "p":
			w.WriteString("</p>")
		case "ul":
			w.WriteString("</ul>")
		case "ol":
			w.WriteString("</ol>")
		case "quote":
			w.WriteString("</blockquote>")
		case "table":
			w.WriteString("</table>")
		}
		open = ""
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trim := strings.TrimSpace(line)
		if f := fenceOf(line); f != "" {
			closeBlock()
			w.WriteString("<pre><code>")
			j := i + 1
			for ; j < len(lines); j++ {
				if g := fenceOf(lines[j]); g != "" && g[0] == f[0] && len(g) >= len(f) && strings.Trim(strings.TrimSpace(lines[j]), g[:1]) == "" {
					break
				}
				if j > i+1 {
					w.WriteByte('\n')
				}
				escWrite(w, lines[j])
			}
			w.WriteString("</code></pre>")
			i = j
			continue
		}
		switch {
		case trim == "":
			closeBlock()
		case strings.HasPrefix(trim, "#") && headingLevel(trim) > 0:
			closeBlock()
			n := headingLevel(trim)
			tag := "h" + string(rune('2'+min(n, 4)))
			w.WriteString("<" + tag + ">")
			inline(w, strings.TrimSpace(trim[n:]))
			w.WriteString("</" + tag + ">")
		case listItem(trim) != "":
			kind := listItem(trim)
			if open != kind {
				closeBlock()
				open = kind
				w.WriteString("<" + kind + ">")
			}
			w.WriteString("<li>")
			inline(w, listText(trim))
			w.WriteString("</li>")
		case strings.HasPrefix(trim, ">"):
			if open != "quote" {
				closeBlock()
				open = "quote"
				w.WriteString("<blockquote>")
			} else {
				w.WriteString("<br>")
			}
			inline(w, strings.TrimSpace(strings.TrimPrefix(trim, ">")))
		case strings.HasPrefix(trim, "|") && strings.HasSuffix(trim, "|") && len(trim) > 1:
			if open != "table" {
				closeBlock()
				open = "table"
				w.WriteString("<table>")
			}
			cells := strings.Split(trim[1:len(trim)-1], "|")
			if isRule(cells) {
				continue
			}
			w.WriteString("<tr>")
			for _, c := range cells {
				w.WriteString("<td>")
				inline(w, strings.TrimSpace(c))
				w.WriteString("</td>")
			}
			w.WriteString("</tr>")
		default:
			if open != "p" {
				closeBlock()
				open = "p"
				w.WriteString("<p>")
			} else {
				w.WriteByte('\n')
			}
			inline(w, line)
		}
	}
	closeBlock()
}

func headingLevel(s string) int {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n > 6 || n == len(s) || s[n] != ' ' {
		return 0
	}
	return n
}

// listItem is ul or ol when s is a list item.
func listItem(s string) string {
	if len(s) > 1 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && s[1] == ' ' {
		return "ul"
	}
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n > 0 && n < 10 && n+1 < len(s) && (s[n] == '.' || s[n] == ')') && s[n+1] == ' ' {
		return "ol"
	}
	return ""
}

func listText(s string) string {
	_, rest, _ := strings.Cut(s, " ")
	return strings.TrimSpace(rest)
}

func isRule(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(strings.TrimSpace(c), ":-") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return true
}

// inline writes one line's text escaped, with `code` and **bold**.
func inline(w *bufio.Writer, s string) {
	for len(s) > 0 {
		i := strings.IndexAny(s, "`*")
		if i < 0 {
			escWrite(w, s)
			return
		}
		escWrite(w, s[:i])
		s = s[i:]
		if s[0] == '`' {
			n := 0
			for n < len(s) && s[n] == '`' {
				n++
			}
			if end := closingRun(s[n:], n); end >= 0 {
				w.WriteString("<code>")
				escWrite(w, s[n:n+end])
				w.WriteString("</code>")
				s = s[n+end+n:]
				continue
			}
			escWrite(w, s[:n])
			s = s[n:]
			continue
		}
		if strings.HasPrefix(s, "**") {
			if end := strings.Index(s[2:], "**"); end > 0 {
				w.WriteString("<strong>")
				escWrite(w, s[2:2+end])
				w.WriteString("</strong>")
				s = s[2+end+2:]
				continue
			}
		}
		escWrite(w, s[:1])
		s = s[1:]
	}
}
