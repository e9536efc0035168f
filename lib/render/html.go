package render

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/ccpipe/ccpipe/lib/extract"
)

// htmlSink writes one self-contained page: inline CSS, no script at all,
// no request of any kind (a Content-Security-Policy forbids them, images
// are data: URIs). Every string from the transcript goes through esc;
// attributes hold only values the renderer made (ids, classes).
type htmlSink struct {
	w        *bufio.Writer
	begun    bool
	fold     int // ids of "show all" switches
	maxLines int // Options.MaxOutputLines
}

// csp allows inline styles and data: images, and nothing else: no script,
// no fetch, no frame, no form, no base.
const csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

const css = `:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--mute:#656d76;--line:#d0d7de;--code:#f6f8fa;--user:#ddf4ff;--bad:#cf222e;--ok:#1a7f37;--warn:#9a6700}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--mute:#8d96a0;--line:#30363d;--code:#161b22;--user:#0c2d48;--bad:#ff7b72;--ok:#3fb950;--warn:#d29922}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 -apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
main{max-width:60rem;margin:0 auto;padding:1rem}
article.session{display:flex;flex-direction:column}
nav.toc{order:-1;border:1px solid var(--line);border-radius:6px;padding:.5rem 1rem;margin:.5rem 0 1rem}
nav.toc ol{margin:.25rem 0;padding-left:1.5rem}
header.head{order:-2}
h1{font-size:1.5rem;margin:.5rem 0;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:0 0 .25rem;overflow-wrap:anywhere}
dl{display:grid;grid-template-columns:max-content 1fr;gap:0 1rem;margin:0;font-size:.9rem}
dt{color:var(--mute)}dd{margin:0;overflow-wrap:anywhere}
.prompt{background:var(--user);border-radius:6px;padding:.5rem 1rem;margin:1.5rem 0 .5rem}
.who,.usage,.time{color:var(--mute);font-size:.85rem}
.md p{margin:.5rem 0;white-space:pre-wrap;overflow-wrap:anywhere}
.md h3,.md h4,.md h5,.md h6{font-size:1rem;margin:.75rem 0 .25rem}
pre{background:var(--code);border:1px solid var(--line);border-radius:6px;padding:.5rem;margin:.25rem 0;overflow-x:auto;font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap;overflow-wrap:anywhere}
code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);border-radius:4px;padding:0 .2em;overflow-wrap:anywhere}
pre code{background:none;padding:0}
details{border:1px solid var(--line);border-radius:6px;margin:.5rem 0;padding:0 .75rem}
details[open]{padding-bottom:.5rem}
summary{cursor:pointer;padding:.35rem 0;overflow-wrap:anywhere}
details.tool.failed{border-color:var(--bad);border-width:2px}
.bad{color:var(--bad)}.ok{color:var(--ok)}
.label{color:var(--mute);font-size:.8rem;margin-top:.5rem}
.diff .add{color:var(--ok)}.diff .del{color:var(--bad)}
.marker{border-left:4px solid var(--warn);padding:.25rem .75rem;margin:.75rem 0}
.marker b{color:var(--warn)}
.compact{display:flex;align-items:center;gap:.75rem;color:var(--mute);margin:1.5rem 0 .5rem}
.compact::before,.compact::after{content:"";flex:1;border-top:2px dashed var(--line)}
.fold>input{display:none}
.fold>pre{max-height:22em;overflow:hidden}
.fold>input:checked~pre{max-height:none}
.fold>input:checked~label{display:none}
.fold>label{display:inline-block;cursor:pointer;color:var(--mute);font-size:.85rem;border:1px solid var(--line);border-radius:4px;padding:0 .5rem}
img{max-width:100%;height:auto;border:1px solid var(--line);border-radius:4px}
table{border-collapse:collapse;display:block;overflow-x:auto}td,th{border:1px solid var(--line);padding:.2rem .5rem}
blockquote{margin:.5rem 0;padding-left:.75rem;border-left:3px solid var(--line);color:var(--mute)}
footer{color:var(--mute);font-size:.85rem;margin:1rem 0;border-top:1px solid var(--line);padding-top:.5rem}
`

func (s *htmlSink) p(parts ...string) {
	for _, p := range parts {
		s.w.WriteString(p)
	}
}

// e writes transcript text, escaped.
func (s *htmlSink) e(t string) { escWrite(s.w, t) }

func (s *htmlSink) head(m *Meta) {
	title := m.Title
	if title == "" {
		title = "Session " + m.SessionID
	}
	if !s.begun {
		s.begun = true
		s.p("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n",
			`<meta http-equiv="Content-Security-Policy" content="`, csp, "\">\n",
			`<meta name="referrer" content="no-referrer">`, "\n",
			`<meta name="viewport" content="width=device-width, initial-scale=1">`, "\n<title>")
		s.e(title)
		s.p("</title>\n<style>\n", css, "</style></head>\n<body><main>\n")
	}
	n := fmt.Sprint(m.N)
	s.p(`<article class="session" id="s`, n, "\">\n<header class=\"head\"><h1>")
	s.e(title)
	s.p("</h1><dl>")
	row := func(k, v string) {
		if v != "" {
			s.p("<dt>", k, "</dt><dd>")
			s.e(v)
			s.p("</dd>")
		}
	}
	row("Session", m.SessionID)
	row("Directory", m.Cwd)
	row("Branch", m.GitBranch)
	if m.Start != "" {
		row("Started", when(m.Start))
	}
	row("Claude Code", m.Version)
	s.p("</dl></header>\n")
}

func (s *htmlSink) prompt(p *promptView, depth int) {
	how, title, body, who := p.layout()
	switch how {
	case asNothing:
		return
	case asFold:
		s.details("fold", title, false, func() { s.pre(body, "") })
	case asLine:
		s.p(`<div class="who">`)
		s.e(title)
		s.p("</div>\n")
	case asInterrupt:
		s.p(`<div class="marker"><b>⏹ `)
		s.e(title)
		s.p("</b> <span class=\"time\">")
		s.e(who)
		s.p("</span></div>\n")
	default:
		if how == asTask {
			s.p(`<section class="prompt task"><div class="who">Task given to the subagent · `)
		} else {
			s.p(`<section class="prompt" id="`, p.Anchor, `"><h2>`, fmt.Sprint(p.N), ". ")
			s.e(excerpt(p.Text, 80))
			s.p(`</h2><div class="who">`)
		}
		s.e(who)
		s.p("</div>")
		s.markdown(p.Text)
		s.images(p.Images)
		s.p("</section>\n")
		return
	}
	s.images(p.Images)
}

func (s *htmlSink) images(imgs []Image) {
	for _, img := range imgs {
		// MediaType is one of imageTypes and Data the base64 alphabet
		// only (checked by imagesOf): nothing here can leave the attribute.
		s.p(`<p><img alt="image from the transcript" src="`)
		img.writeURI(s.w)
		s.p("\"></p>\n")
	}
}

func (s *htmlSink) text(t string) { s.markdown(t) }

func (s *htmlSink) markdown(t string) {
	s.p(`<div class="md">`)
	mdHTML(s.w, t)
	s.p("</div>\n")
}

func (s *htmlSink) thinking(t string) {
	s.details("thinking", "Thinking", false, func() { s.pre(t, "") })
}

// details writes a collapsible block with a plain-text summary.
func (s *htmlSink) details(class, summary string, open bool, body func()) {
	s.p(`<details class="`, class, `"`)
	if open {
		s.p(" open")
	}
	s.p("><summary>")
	s.e(summary)
	s.p("</summary>")
	body()
	s.p("</details>\n")
}

// Long outputs are folded: the first foldLines lines show, the rest after
// a "show all" (a CSS switch, no script).
const (
	foldLines = 20
	foldBytes = 4 << 10
)

// pre writes preformatted text, folded when long; class "diff" colours a
// unified diff's lines.
func (s *htmlSink) pre(t, class string) {
	lines := strings.Count(t, "\n") + 1
	fold := lines > foldLines || len(t) > foldBytes
	if fold {
		s.fold++
		id := fmt.Sprintf("f%d", s.fold)
		s.p(`<div class="fold"><input type="checkbox" id="`, id, `">`)
		defer s.p(`<label for="`, id, `">show all `, fmt.Sprint(lines), " lines (", size(len(t)), ")</label></div>")
	}
	s.p(`<pre`)
	if class != "" {
		s.p(` class="`, class, `"`)
	}
	s.p(">")
	if class == "diff" {
		for i, line := range strings.Split(strings.TrimSuffix(t, "\n"), "\n") {
			if i > 0 {
				s.p("\n")
			}
			cls := ""
			switch {
			case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"), strings.HasPrefix(line, "@@"):
			case strings.HasPrefix(line, "+"):
				cls = "add"
			case strings.HasPrefix(line, "-"):
				cls = "del"
			}
			if cls != "" {
				s.p(`<span class="`, cls, `">`)
				s.e(line)
				s.p("</span>")
			} else {
				s.e(line)
			}
		}
	} else {
		s.e(t)
	}
	s.p("</pre>")
}

func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

func (s *htmlSink) label(t string) { s.p(`<div class="label">`, t, "</div>") }

func (s *htmlSink) tool(c *call, depth int) error {
	class := "tool " + c.Kind
	if c.failed() {
		class += " failed"
	}
	s.p(`<details class="`, class, `" id="`)
	s.e(c.ToolUseID)
	s.p(`"`)
	if c.Kind != "quiet" {
		s.p(" open")
	}
	s.p("><summary><b>")
	s.e(c.Name)
	s.p("</b>")
	if c.Summary != "" {
		s.p(" <code>")
		s.e(c.Summary)
		s.p("</code>")
	}
	if st := status(c); st != "" {
		cls := "ok"
		if c.failed() {
			cls = "bad"
		}
		s.p(` <span class="status `, cls, `">`)
		s.e(st)
		s.p("</span>")
	}
	if t := clock(c.Timestamp); t != "" {
		s.p(` <span class="time">`, t, "</span>")
	}
	s.p("</summary>")
	if c.Body != "" {
		cls := ""
		if c.Kind == "edit" {
			cls = "diff"
		}
		s.pre(c.Body, cls)
	}
	var err error
	if c.Nested != nil {
		s.p(`<details class="subagent"><summary>Subagent transcript</summary>`)
		err = c.Nested()
		s.p("</details>")
	}
	s.result(c)
	s.images(c.Images)
	s.p("</details>\n")
	return err
}

func (s *htmlSink) result(c *call) {
	for _, p := range results(c) {
		label := htmlEscape(p.label)
		switch {
		case p.bad:
			label = `<span class="bad">` + label + "</span>"
		case p.path != "":
			label += " <code>" + htmlEscape(p.path) + "</code>"
		}
		s.label(label)
		switch {
		case p.path != "" || p.text == "" && !p.bad:
		case p.prose:
			s.markdown(p.text)
		default:
			head, rest, more := foldAt(p.text, s.maxLines)
			s.pre(head, "")
			if more > 0 {
				s.details("more", moreLines(more, rest), false, func() { s.pre(rest, "") })
			}
		}
	}
}

func (s *htmlSink) marker(m marker) {
	s.p(`<div class="marker"><b>⚠ `)
	s.e(m.Title)
	s.p("</b>")
	if m.Time != "" {
		s.p(` <span class="time">`, m.Time, "</span>")
	}
	if m.Message != "" {
		s.pre(m.Message, "")
	}
	s.p("</div>\n")
}

func (s *htmlSink) divider(c *extract.Compaction) {
	s.p(`<div class="compact">Conversation compacted · `)
	s.e(compactWords(c))
	s.p("</div>\n")
	if c.Summary != nil {
		s.details("summary", "Compaction summary", false, func() { s.pre(*c.Summary, "") })
	}
}

func (s *htmlSink) turn(t Tokens, depth int) {
	s.p(`<div class="usage">`, tokenWords(t, htmlEscape), "</div>\n")
}

func (s *htmlSink) foot(m *Meta) {
	n := fmt.Sprint(m.N)
	s.p(`<nav class="toc" id="contents-`, n, "\"><b>Contents</b>")
	if m.Truncated {
		s.p(` <span class="bad">(the transcript could not be read to its end)</span>`)
	}
	long := len(m.TOC) > 20
	if long {
		s.p("<details><summary>", fmt.Sprint(len(m.TOC)+m.TOCMore), " prompts</summary>")
	}
	s.p("<ol>")
	for _, e := range m.TOC {
		s.p(`<li><a href="#`, e.Anchor, `">`)
		s.e(e.Text)
		s.p("</a>")
		if e.Time != "" {
			s.p(` <span class="time">`, e.Time, "</span>")
		}
		s.p("</li>")
	}
	s.p("</ol>")
	if m.TOCMore > 0 {
		s.p("<p>… and ", fmt.Sprint(m.TOCMore), " more prompts.</p>")
	}
	if long {
		s.p("</details>")
	}
	if len(m.TOC) == 0 {
		s.p("<p>No prompts.</p>")
	}
	s.p("</nav>\n<footer>")
	s.e(summaryWords(m, func(s string) string { return s }))
	s.p("</footer>\n</article>\n")
}

func (s *htmlSink) end(sessions int) {
	if !s.begun {
		s.p("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n",
			`<meta http-equiv="Content-Security-Policy" content="`, csp, "\">\n<title>No session</title></head><body><main><p>No session.</p>")
	}
	s.p("</main></body></html>\n")
}

// escWrite writes t with the five HTML-significant characters escaped,
// piece by piece (no copy of a large text).
func escWrite(w *bufio.Writer, t string) {
	last := 0
	for i := 0; i < len(t); i++ {
		var rep string
		switch t[i] {
		case '<':
			rep = "&lt;"
		case '>':
			rep = "&gt;"
		case '&':
			rep = "&amp;"
		case '"':
			rep = "&#34;"
		case '\'':
			rep = "&#39;"
		case 0:
			rep = "\uFFFD"
		default:
			continue
		}
		w.WriteString(t[last:i])
		w.WriteString(rep)
		last = i + 1
	}
	w.WriteString(t[last:])
}

func htmlEscape(t string) string {
	var b strings.Builder
	bw := bufio.NewWriter(&b)
	escWrite(bw, t)
	bw.Flush()
	return b.String()
}
