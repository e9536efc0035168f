package render

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
	"github.com/ccpipe/ccpipe/lib/numfmt"
	"github.com/ccpipe/ccpipe/lib/pricing"
)

// renderPath renders one transcript (with its subagents) in format.
func renderPath(t testing.TB, format, path string) (string, []string) {
	t.Helper()
	var out bytes.Buffer
	var warns []string
	d, err := NewDoc(&out, Options{Format: format, Warn: func(m string) { warns = append(warns, m) }})
	if err != nil {
		t.Fatal(err)
	}
	agents, err := AgentsOf(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Session(context.Background(), Session{Path: path, Agents: agents}); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String(), warns
}

// TestCorpusGolden keeps the Markdown of every session of the real-CLI
// corpus, and checks its HTML holds only the renderer's own markup.
func TestCorpusGolden(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/corpus/claude/projects/*/*.jsonl")
	if len(paths) < 7 {
		t.Fatalf("corpus: %d sessions, want 7", len(paths))
	}
	for _, p := range paths {
		id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		t.Run(id, func(t *testing.T) {
			md, warns := renderPath(t, "md", p)
			if len(warns) > 0 {
				t.Errorf("warnings: %q", warns)
			}
			golden.Check(t, filepath.Join("testdata", "corpus", id+".md"), md)
			page, _ := renderPath(t, "html", p)
			if err := checkMarkup(page); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestCorpusContent checks what the corpus sessions must show: each
// prompt, each tool call with its exit code, the failures, the nested
// subagents, the compaction.
func TestCorpusContent(t *testing.T) {
	dir := "../../testdata/corpus/claude/projects/"
	cases := []struct {
		session string
		want    []string
	}{
		{"-home-dev-projects-alpha/c0a1f001-0000-4000-8000-000000000001", []string{
			"<h1>corpus-tools</h1>", "Exercise every tool once, please.", "<code>echo hello-corpus</code>",
			"· exit 0", "· ✗ exit 1", "· ✗ exit 3", "partial-out\nsome-err", `<span class="del">-Status: draft</span>`,
			`<span class="add">+Status: reviewed</span>`, "corpus notes\nline two", "<b>Glob</b>", "<b>Grep</b>",
			"show all 6222 lines", "tool-results/bearvmeuj.txt", "<summary>Thinking</summary>",
		}},
		{"-home-dev-projects-beta/c0a1f002-0000-4000-8000-000000000002", []string{
			"Delegate two checks to subagents.", "Foreground check (general-purpose)",
			"<summary>Subagent transcript</summary>", "Task given to the subagent", "<code>echo fg-sub-ok</code>",
			"<code>sleep 1; echo bg-sub-ok</code>", "Task notification · task-notification",
		}},
		{"-home-dev-projects-beta/c0a1f003-0000-4000-8000-000000000003", []string{
			"First prompt: remember the word PERIWINKLE.", "Second prompt: what was the word?",
			"Conversation compacted · manual · 120 tokens before", "Compaction summary", "Command /compact",
		}},
		{"-home-dev-projects-gamma/c0a1f004-0000-4000-8000-000000000004", []string{
			"API error, retrying (attempt 1 of 2) · HTTP 529",
		}},
		{"-home-dev-projects-gamma/c0a1f005-0000-4000-8000-000000000005", []string{"⚠ API error · HTTP 400"}},
		{"-home-dev-projects-gamma/c0a1f006-0000-4000-8000-000000000006", []string{
			"<title>Hook titled session</title>", "denied by hook", "DENY-REASON-42",
		}},
		{"-home-dev-projects-gamma/c0a1f007-0000-4000-8000-000000000007", []string{
			"FIRST-INTERACTIVE prompt: sleep please", "QUEUED-FOLLOW-UP", "human · queued", "woke-up",
		}},
	}
	for _, c := range cases {
		page, _ := renderPath(t, "html", dir+c.session+".jsonl")
		for _, w := range c.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: page lacks %q", c.session, w)
			}
		}
	}
}

// payload tries every way a transcript string could run script or break
// out of the page around it.
const payload = "<script>document.title='PWNED'</script><img src=x onerror=\"document.body.id='pwned'\">" +
	"</textarea></pre></details></code><a href=\"javascript:alert(1)\">link</a>&lt;b&gt; ``` ```` " +
	"[x](javascript:alert(2)) <svg onload=alert(3)> \"' <!-- --> <style>body{display:none}</style>"

// hostile writes a transcript that plants payload in every string a page
// shows, and returns its path.
func hostile(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "11111111-2222-4333-8444-555555555555.jsonl")
	var b bytes.Buffer
	n := 0
	rec := func(typ string, fields map[string]any) {
		n++
		fields["type"] = typ
		fields["uuid"] = fmt.Sprintf("u%d", n)
		if _, ok := fields["timestamp"]; !ok {
			fields["timestamp"] = fmt.Sprintf("2026-01-01T00:00:%02d.000Z", n%60)
		}
		fields["sessionId"] = "11111111-2222-4333-8444-555555555555"
		fields["cwd"] = "/home/" + payload
		fields["gitBranch"] = payload
		line, err := json.Marshal(fields)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	msg := func(role string, content any) map[string]any {
		return map[string]any{"role": role, "content": content, "id": fmt.Sprintf("msg%d", n), "model": payload,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}
	}
	use := func(id, name string, input map[string]any) {
		rec("assistant", map[string]any{"message": msg("assistant", []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}})})
	}
	result := func(id, text string, isErr bool, extra map[string]any) {
		f := map[string]any{"message": map[string]any{"role": "user", "content": []any{map[string]any{
			"type": "tool_result", "tool_use_id": id, "content": text, "is_error": isErr}}}}
		for k, v := range extra {
			f[k] = v
		}
		rec("user", f)
	}
	rec("custom-title", map[string]any{"customTitle": payload})
	rec("user", map[string]any{"message": map[string]any{"role": "user", "content": payload}})
	rec("user", map[string]any{"message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "images: " + payload},
		map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/svg+xml", "data": "PHN2Zy8+"}},
		map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "AAAA\" onerror=\"alert(4)"}},
		map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png\" onerror=\"alert(5)", "data": "AAAA"}},
		map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
	}}})
	rec("assistant", map[string]any{"message": msg("assistant", []any{map[string]any{"type": "thinking", "thinking": payload}})})
	rec("assistant", map[string]any{"message": msg("assistant", []any{map[string]any{"type": "text",
		"text": "# " + payload + "\n- " + payload + "\n| " + payload + " | b |\n> " + payload + "\n`" + payload + "` **" + payload + "**\n```\n" + payload}})})
	use("toolu_1\"><script>x</script>", "Bash", map[string]any{"command": payload})
	result("toolu_1\"><script>x</script>", "Exit code 2\n"+payload, true, nil)
	use("toolu_2", "Bash", map[string]any{"command": "echo ok"})
	result("toolu_2", payload, false, map[string]any{"toolUseResult": map[string]any{"stdout": payload, "stderr": payload}})
	use("toolu_3", "Edit", map[string]any{"file_path": payload, "old_string": payload, "new_string": payload + "\n" + payload})
	result("toolu_3", payload, false, nil)
	use("toolu_4", "Write", map[string]any{"file_path": payload, "content": strings.Repeat(payload+"\n", 50)})
	result("toolu_4", payload, false, nil)
	use("toolu_5", payload, map[string]any{payload: payload})
	result("toolu_5", payload, false, nil)
	use("toolu_6", "Bash", map[string]any{"command": payload})
	result("toolu_6", "PreToolUse:Bash hook error: "+payload, true, map[string]any{"toolDenialKind": "permission-rule",
		"permissionDecision": map[string]any{"decision": "reject", "source": "hook"}})
	rec("system", map[string]any{"subtype": "api_error", "error": map[string]any{"formatted": payload, "status": 529}, "retryAttempt": 1, "maxRetries": 2})
	rec("attachment", map[string]any{"attachment": map[string]any{"type": "hook_non_blocking_error", "hookName": payload, "stderr": payload}})
	rec("attachment", map[string]any{"attachment": map[string]any{"type": "queued_command", "prompt": payload}})
	rec("user", map[string]any{"origin": map[string]any{"kind": "task-notification"}, "isMeta": true,
		"message": map[string]any{"role": "user", "content": "<task-notification><result>" + payload + "</result></task-notification>"}})
	rec("user", map[string]any{"message": map[string]any{"role": "user", "content": "<command-name>" + payload + "</command-name>"}})
	rec("system", map[string]any{"subtype": "compact_boundary", "compactMetadata": map[string]any{"trigger": payload, "preTokens": 5}})
	rec("user", map[string]any{"isCompactSummary": true, "message": map[string]any{"role": "user", "content": payload}})
	rec("user", map[string]any{"origin": map[string]any{"kind": payload}, "message": map[string]any{"role": "user", "content": "odd origin"}})
	rec("user", map[string]any{"timestamp": payload, "message": map[string]any{"role": "user", "content": "[Request interrupted by user"}})
	rec("assistant", map[string]any{"isApiErrorMessage": true, "message": msg("assistant", []any{map[string]any{"type": "text", "text": payload}})})
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHostileHTML renders the planted transcript and checks that every
// tag and attribute of the page is the renderer's own.
func TestHostileHTML(t *testing.T) {
	page, warns := renderPath(t, "html", hostile(t))
	if len(warns) > 0 {
		t.Errorf("warnings: %q", warns)
	}
	if err := checkMarkup(page); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"&lt;script&gt;document.title=&#39;PWNED&#39;&lt;/script&gt;", // the title, the prompt...
		"· ✗ exit 2", "denied by hook", "Hook error", "API error, retrying", "Conversation compacted",
		`<img alt="image from the transcript" src="data:image/png;base64,iVBORw0KGgo=">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(page, "<img "); n != 1 {
		t.Errorf("%d images, want 1 (the valid PNG only)", n)
	}
	if strings.Count(page, "<title>") != 1 || !strings.Contains(page, `content="`+csp+`"`) {
		t.Error("page lacks its title or its Content-Security-Policy")
	}
}

// TestHostileMarkdown checks the Markdown keeps its own structure: the
// planted closing tags and fences stay inside code or are escaped.
func TestHostileMarkdown(t *testing.T) {
	md, _ := renderPath(t, "md", hostile(t))
	// Outside fences, no '<' may come from the transcript: every tag is
	// one the renderer writes.
	own := regexp.MustCompile(`^</?(details|summary|b|code|sub|a)( open| id="[a-z0-9-]+")?>`)
	fence := ""
	opened, closed := 0, 0
	for i, line := range strings.Split(md, "\n") {
		if f := fenceOf(line); f != "" {
			if fence == "" {
				fence = f
			} else if f == fence && strings.TrimSpace(line) == f {
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		for j := 0; j < len(line); j++ {
			if line[j] != '<' || inCodeSpan(line, j) {
				continue
			}
			if !own.MatchString(line[j:]) {
				t.Fatalf("line %d: a '<' from the transcript outside code: %q", i+1, line)
			}
			if strings.HasPrefix(line[j:], "<details") {
				opened++
			}
			if strings.HasPrefix(line[j:], "</details>") {
				closed++
			}
		}
	}
	if fence != "" {
		t.Errorf("the Markdown ends inside a fence %q", fence)
	}
	if opened != closed || opened < 5 {
		t.Errorf("%d <details> opened, %d closed", opened, closed)
	}
}

// inCodeSpan reports whether byte j of line lies inside a code span.
func inCodeSpan(line string, j int) bool {
	for i := 0; i < len(line); {
		if line[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		end := closingRun(line[i+n:], n)
		if end < 0 {
			i += n
			continue
		}
		if j > i && j < i+n+end {
			return true
		}
		i += n + end + n
	}
	return false
}

func TestFence(t *testing.T) {
	for _, text := range []string{"plain", "a ``` b", "````\nx\n````", "`", "ends with `"} {
		var b bytes.Buffer
		s := &mdSink{w: bufio.NewWriter(&b)}
		s.fence(text, "text")
		s.w.Flush()
		out := b.String()
		f := out[:strings.Index(out, "text")]
		if len(f) < 3 || len(f) <= longestRun(text, '`') {
			t.Errorf("%q: fence %q not longer than its backticks", text, f)
		}
		if !strings.HasSuffix(out, "\n"+f+"\n\n") {
			t.Errorf("%q: not closed by %q: %q", text, f, out)
		}
	}
}

func TestMdProse(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a <b> `<c>` d", "a &lt;b> `<c>` d"},
		{"</details>", "&lt;/details>"},
		{"```go\n<x>\n```\n<y>", "```go\n<x>\n```\n&lt;y>"},
		{"```\nopen fence", "```\nopen fence\n```"},
		{"~~~~\n```\n~~~~", "~~~~\n```\n~~~~"},
		{"`` a ` <b> ``", "`` a ` <b> ``"},
		{"unclosed ` <b>", "unclosed ` &lt;b>"},
	}
	for _, c := range cases {
		if got := mdProse(c.in); got != c.want {
			t.Errorf("mdProse(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestUnifiedDiff(t *testing.T) {
	got := unifiedDiff("f", "a\nb\nc\nd\n", "a\nB\nc\nd\ne\n")
	want := "--- f\n+++ f\n@@ -1,4 +1,5 @@\n a\n-b\n+B\n c\n d\n+e\n"
	if got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
}

func TestCodeSpan(t *testing.T) {
	for in, want := range map[string]string{"a": "`a`", "a`b": "``a`b``", "`x": "`` `x ``", "a\nb": "`a b`"} {
		if got := codeSpan(in); got != want {
			t.Errorf("codeSpan(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkdownHTML(t *testing.T) {
	cases := []struct{ in, want string }{
		{"# T\ntext **b** `c`", "<h3>T</h3><p>text <strong>b</strong> <code>c</code></p>"},
		{"- a\n- b\n\n1. c", "<ul><li>a</li><li>b</li></ul><ol><li>c</li></ol>"},
		{"```go\nx<y\n```", "<pre><code>x&lt;y</code></pre>"},
		{"| a | b |\n|---|---|\n| 1 | 2 |", "<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>"},
		{"[x](javascript:alert(1))", "<p>[x](javascript:alert(1))</p>"},
	}
	for _, c := range cases {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		mdHTML(w, c.in)
		w.Flush()
		if b.String() != c.want {
			t.Errorf("mdHTML(%q) = %q, want %q", c.in, b.String(), c.want)
		}
	}
}

// allowed are the tags and attributes the renderer writes.
var (
	allowedTags = map[string]bool{
		"!DOCTYPE": true, "html": true, "head": true, "meta": true, "title": true, "style": true, "body": true,
		"main": true, "article": true, "header": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true,
		"h6": true, "dl": true, "dt": true, "dd": true, "section": true, "div": true, "p": true, "pre": true,
		"code": true, "details": true, "summary": true, "b": true, "span": true, "strong": true, "ul": true,
		"ol": true, "li": true, "blockquote": true, "table": true, "tr": true, "td": true, "br": true,
		"img": true, "input": true, "label": true, "nav": true, "a": true, "footer": true,
	}
	attrValue = map[string]*regexp.Regexp{
		"class": regexp.MustCompile(`^[a-z ]+$`), "id": regexp.MustCompile(`^[^"<>]*$`),
		"href": regexp.MustCompile(`^#[a-z0-9-]+$`), "for": regexp.MustCompile(`^f[0-9]+$`),
		"type": regexp.MustCompile(`^checkbox$`), "lang": regexp.MustCompile(`^en$`),
		"charset": regexp.MustCompile(`^utf-8$`), "http-equiv": regexp.MustCompile(`^Content-Security-Policy$`),
		"name": regexp.MustCompile(`^(referrer|viewport)$`), "content": regexp.MustCompile(`^[^"<>]*$`),
		"alt": regexp.MustCompile(`^image from the transcript$`), "open": nil,
		"src": regexp.MustCompile(`^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]*$`),
	}
	tagRE  = regexp.MustCompile(`^<(/?)([!A-Za-z][A-Za-z0-9]*)`)
	attrRE = regexp.MustCompile(`^\s+([a-z-]+)(="([^"]*)")?`)
)

// checkMarkup fails when page holds a tag or attribute the renderer does
// not write, or a <style> body other than its own.
func checkMarkup(page string) error {
	rest := page
	for {
		i := strings.IndexByte(rest, '<')
		if i < 0 {
			return nil
		}
		rest = rest[i:]
		m := tagRE.FindStringSubmatch(rest)
		if m == nil || !allowedTags[m[2]] {
			return fmt.Errorf("foreign markup at %q", excerpt(rest, 60))
		}
		rest = rest[len(m[0]):]
		if m[2] == "!DOCTYPE" {
			rest = rest[strings.IndexByte(rest, '>')+1:]
			continue
		}
		for {
			a := attrRE.FindStringSubmatch(rest)
			if a == nil {
				break
			}
			re, ok := attrValue[a[1]]
			if !ok || (re != nil && !re.MatchString(a[3])) || (re == nil && a[2] != "") {
				return fmt.Errorf("foreign attribute %q on <%s>", a[0], m[2])
			}
			rest = rest[len(a[0]):]
		}
		if !strings.HasPrefix(rest, ">") {
			return fmt.Errorf("malformed tag <%s at %q", m[2], excerpt(rest, 60))
		}
		rest = rest[1:]
		if m[2] == "style" && m[1] == "" {
			if !strings.HasPrefix(rest, "\n"+css+"</style>") {
				return fmt.Errorf("a <style> that is not the renderer's")
			}
			rest = rest[len("\n"+css):]
		}
	}
}

// FuzzMarkdownHTML checks that no Markdown makes mdHTML write a tag of
// the text's own.
func FuzzMarkdownHTML(f *testing.F) {
	for _, s := range []string{payload, "# a\n- b\n```\n<c>", "| <a> |\n|--|", "`<x>` **<y>**", "> <q>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		mdHTML(w, s)
		w.Flush()
		if err := checkMarkup(b.String()); err != nil {
			t.Fatalf("%q: %v\n%s", s, err, b.String())
		}
	})
}

// FuzzRender renders arbitrary transcript lines: no panic, and the page
// holds only the renderer's markup.
func FuzzRender(f *testing.F) {
	data, _ := os.ReadFile(hostile(f))
	for _, line := range bytes.Split(data, []byte("\n")) {
		f.Add(string(line))
	}
	f.Add(`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"image"}]}]}}`)
	f.Fuzz(func(t *testing.T, line string) {
		p := filepath.Join(t.TempDir(), "s.jsonl")
		os.WriteFile(p, []byte(line+"\n"+line+"\n"), 0o644)
		var out bytes.Buffer
		d, _ := NewDoc(&out, Options{Format: "html"})
		if err := d.Session(context.Background(), Session{Path: p}); err != nil {
			t.Fatal(err)
		}
		d.Close()
		if err := checkMarkup(out.String()); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
	})
}

// TestLargeImage renders an image whose data is over MaxString: it goes
// through a temporary file into the page whole, a long text next to it is
// cut with a note, and the temporary files are gone afterwards.
func TestLargeImage(t *testing.T) {
	withMaxString(t, 1024)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	data := strings.Repeat("iVBORw0KGgo=", 1000)
	long := strings.Repeat("x", 5000)
	line := `{"type":"user","uuid":"u1","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":[` +
		`{"type":"text","text":"` + long + `"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + data + `"}}]}}` + "\n"
	p := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(p, []byte(line), 0o644)
	for _, format := range Formats {
		page, warns := renderPath(t, format, p)
		if !strings.Contains(page, "data:image/png;base64,"+data+`"`) && !strings.Contains(page, "data:image/png;base64,"+data+")") {
			t.Errorf("%s: the image is not whole on the page", format)
		}
		if !strings.Contains(page, strings.Repeat("x", 1024)) || !strings.Contains(page, "[3.9 KB more not shown") || strings.Contains(page, strings.Repeat("x", 1025)) {
			t.Errorf("%s: the long text is not cut with a note", format)
		}
		if len(warns) != 1 || !strings.Contains(warns[0], "s.jsonl:1: 1 texts over 1.0 KB cut short") {
			t.Errorf("%s: warnings %q", format, warns)
		}
		if format == "html" {
			if err := checkMarkup(page); err != nil {
				t.Error(err)
			}
		}
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "cc-render-*")); len(left) > 0 {
		t.Errorf("temporary files left: %q", left)
	}
}

// TestTurnCost prices each turn as cc-extract usage --cost does: a known
// model from the catalog, an unknown one at the default model's prices
// and named as assumed, a usage out of range not priced (never $0).
func TestTurnCost(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "22222222-2222-4333-8444-555555555555.jsonl")
	lines := []string{
		`{"type":"user","uuid":"u1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"one"}}`,
		`{"type":"assistant","uuid":"a1","timestamp":"2026-01-01T00:00:02.000Z","requestedModel":"claude-opus-4-5","message":{"id":"m1","role":"assistant","model":"claude-opus-4-5-20251101","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":1000000,"output_tokens":0}}}`,
		`{"type":"user","uuid":"u2","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"two"}}`,
		`{"type":"assistant","uuid":"a2","timestamp":"2026-01-01T00:00:04.000Z","message":{"id":"m2","role":"assistant","model":"<b>x-model</b>","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":10,"output_tokens":5}}}`,
		`{"type":"user","uuid":"u3","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"three"}}`,
		`{"type":"assistant","uuid":"a3","timestamp":"2026-01-01T00:00:06.000Z","message":{"id":"m3","role":"assistant","model":"claude-opus-4-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":-4,"output_tokens":5}}}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	md, _ := renderPath(t, "md", path)
	html, _ := renderPath(t, "html", path)
	opus := pricing.Embedded().Cost("claude-opus-4-5", &pricing.Usage{InputTokens: 1e6})
	for _, want := range []string{
		"input 1,000,000 · output 0 · cache read 0 · cache write 0 · " + numfmt.Dollars(opus.USD) + "</sub>",
		`(assumed: &lt;b&gt;x-model&lt;/b&gt; priced as the default model)`,
		"cache write 0 · cost unknown</sub>",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(html, "(assumed: &lt;b&gt;x-model&lt;/b&gt; priced as the default model)") {
		t.Errorf("html lacks the escaped assumed model:\n%s", html)
	}
	if opus.USD != 5 {
		t.Errorf("opus 4.5 input at 1M tokens: %v, want $5 (pricing.md)", opus.USD)
	}
}
