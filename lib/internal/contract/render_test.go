package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/commands/ccrender"
	"github.com/ccpipe/ccpipe/lib/extract"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// chromium finds Debian's headless browser; the suite fails without it
// once asked to run (.ci/run installs it).
func chromium(t *testing.T) string {
	t.Helper()
	if os.Getenv("CCPIPE_CONTRACT") != "1" {
		t.Skip("contract suite skipped: run it with CCPIPE_CONTRACT=1 go test ./lib/internal/contract/")
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium not found: apt-get install chromium")
	return ""
}

// artifacts is where the screenshots are kept for a person to look at:
// $CCPIPE_ARTIFACTS/render, else <temp dir>/ccpipe-artifacts/render.
func artifacts(t *testing.T) string {
	root := os.Getenv("CCPIPE_ARTIFACTS")
	if root == "" {
		root = filepath.Join(os.TempDir(), "ccpipe-artifacts")
	}
	dir := filepath.Join(root, "render")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browse loads a page in headless Chromium with every network and update
// feature off, and returns its DOM after load (after any script would
// have run). With png set it also keeps a screenshot of a phone-width
// window there.
func browse(t *testing.T, bin, page, png string) string {
	t.Helper()
	run := func(args ...string) []byte {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir=" + t.TempDir()}
		cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
		}
		return out.Bytes()
	}
	dom := string(run("--dump-dom", "--virtual-time-budget=2000"))
	if png != "" {
		run("--screenshot="+png, "--window-size=412,2400", "--hide-scrollbars")
		if st, err := os.Stat(png); err != nil || st.Size() < 1000 {
			t.Errorf("no screenshot at %s", png)
		} else {
			t.Logf("screenshot: %s", png)
		}
	}
	return dom
}

// renderHTML renders a transcript (with its subagents) into dir.
func renderHTML(t *testing.T, transcript, out string) {
	t.Helper()
	var stdout, errb bytes.Buffer
	if code := ccrender.Run([]string{"html", "--subagents", "--out", out, transcript}, nil, &stdout, &errb); code != 0 {
		t.Fatalf("cc-render: exit %d: %s", code, errb.String())
	}
}

// facts runs one extractor over a transcript and its subagents.
func facts(t *testing.T, kind, path string) []any {
	t.Helper()
	var out []any
	x, err := extract.New(extract.Options{Kind: kind, Subagents: true}, func(v any) error { out = append(out, v); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := x.ReadTranscript(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// text is the DOM's text, tags dropped and the few entities the DOM
// serializer writes turned back.
func text(dom string) string {
	s := tagRE.ReplaceAllString(dom, "")
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&nbsp;", " ", "&amp;", "&").Replace(s)
}

// Every page of the real-CLI corpus, opened in Chromium: the DOM shows
// every prompt, every tool call (by its tool_use id) and every shell exit
// code cc-extract finds, and holds no script. A screenshot of each page
// is kept.
func TestRenderCorpusInChromium(t *testing.T) {
	bin := chromium(t)
	shots := artifacts(t)
	paths, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "corpus", "claude", "projects", "*", "*.jsonl"))
	if len(paths) == 0 {
		t.Fatal("no corpus")
	}
	for _, p := range paths {
		id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			page := filepath.Join(t.TempDir(), id+".html")
			renderHTML(t, p, page)
			dom := browse(t, bin, page, filepath.Join(shots, id+".png"))
			checkNoScript(t, dom)
			txt := text(dom)
			for _, f := range facts(t, "prompts", p) {
				pr := f.(extract.Prompt)
				if pr.Origin == "task-notification" {
					continue // shown as is, in its fold
				}
				if want := strings.TrimSpace(pr.Text); !strings.Contains(txt, want) {
					t.Errorf("prompt %q is not on the page", want)
				}
			}
			for _, f := range facts(t, "tools", p) {
				tool := f.(extract.Tool)
				if !strings.Contains(dom, `id="`+tool.ToolUseID+`"`) {
					t.Errorf("tool call %s (%s) is not on the page", tool.ToolUseID, tool.Name)
				}
			}
			for _, f := range facts(t, "shell", p) {
				sh := f.(extract.Shell)
				if sh.ExitCode == nil {
					continue
				}
				re := regexp.MustCompile(`id="` + regexp.QuoteMeta(sh.ToolUseID) + `"[^>]*><summary>.*?exit ` + fmt.Sprint(*sh.ExitCode) + `\b`)
				if !re.MatchString(dom) {
					t.Errorf("call %s: exit %d is not in its summary", sh.ToolUseID, *sh.ExitCode)
				}
			}
		})
	}
}

// checkNoScript fails when the DOM after load holds a script element or
// what the planted scripts would have added.
func checkNoScript(t *testing.T, dom string) {
	t.Helper()
	// Text from the transcript is escaped in the dump ("&lt;"), so every
	// '<' starts a real element.
	for _, tag := range tagRE.FindAllString(dom, -1) {
		low := strings.ToLower(tag)
		for _, bad := range []string{"<script", "<iframe", "<object", "<embed", "<svg", " onerror=", " onload=", "javascript:", `id="pwned"`} {
			if strings.Contains(low, bad) {
				t.Errorf("the DOM holds an element with %q: %q", bad, tag)
			}
		}
	}
	if strings.Contains(strings.ToLower(dom), "<title>pwned") {
		t.Error("a planted script set the title")
	}
}

// A transcript planting script in every field a page shows: opened in
// Chromium, none of it runs (the title stays, no element is added, no
// script element exists), and the planted text is shown as text.
func TestRenderPlantedScriptInChromium(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	transcript := filepath.Join(dir, "11111111-2222-4333-8444-555555555555.jsonl")
	plant := `<script>document.title='pwned'</script><img src=x onerror="document.body.id='pwned'">` +
		`</textarea></pre></details><a href="javascript:document.body.id='pwned'">x</a><svg onload="document.body.id='pwned'"></svg>`
	var b bytes.Buffer
	n := 0
	rec := func(fields map[string]any) {
		n++
		fields["uuid"] = fmt.Sprintf("u%d", n)
		fields["sessionId"] = "11111111-2222-4333-8444-555555555555"
		fields["timestamp"] = "2026-01-01T00:00:00.000Z"
		fields["cwd"] = plant
		line, _ := json.Marshal(fields)
		b.Write(append(line, '\n'))
	}
	rec(map[string]any{"type": "custom-title", "customTitle": "TITLE " + plant})
	rec(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "PROMPT " + plant}})
	rec(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "id": "m1", "content": []any{
		map[string]any{"type": "text", "text": "TEXT " + plant + "\n```\n" + plant},
		map[string]any{"type": "tool_use", "id": "toolu_x", "name": "Bash", "input": map[string]any{"command": "CMD " + plant}},
	}}})
	rec(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{
		"type": "tool_result", "tool_use_id": "toolu_x", "content": "Exit code 7\nOUT " + plant, "is_error": true}}}})
	if err := os.WriteFile(transcript, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "planted.html")
	renderHTML(t, transcript, page)
	dom := browse(t, bin, page, filepath.Join(artifacts(t), "planted.png"))
	checkNoScript(t, dom)
	if !regexp.MustCompile(`<title>TITLE &lt;script&gt;`).MatchString(dom) {
		t.Errorf("the title is not the planted text, shown as text")
	}
	txt := text(dom)
	for _, want := range []string{"PROMPT " + plant, "TEXT " + plant, "CMD " + plant, "OUT " + plant, "exit 7"} {
		if !strings.Contains(txt, want) {
			t.Errorf("the page does not show %q as text", want[:min(len(want), 40)])
		}
	}
}

// A live session of the real CLI whose prompt, assistant text and Bash
// output carry planted script: cc-render's page, opened in Chromium, shows
// them as text, runs none of them, and shows the exit code.
func TestRenderLiveSessionInChromium(t *testing.T) {
	Require(t)
	bin := chromium(t)
	t.Parallel()
	plant := `<img src=x onerror="document.title='pwned'"><script>document.body.id='pwned'</script>`
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{
			fakeapi.Text("LIVE-TEXT " + plant),
			fakeapi.ToolUse("Bash", map[string]any{"command": `printf '%s\n' 'LIVE-OUT <script>document.body.id="pwned"</script>'; exit 4`}),
		}},
		{Match: "LIVE-OUT", Blocks: []fakeapi.Block{fakeapi.Text("Done.")}},
	}}})
	dir := e.Project("render")
	res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "LIVE-PROMPT " + plant, AllowedTools: []string{"Bash"}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d: %s", res.ExitCode, res.Stderr)
	}
	paths := e.Transcripts()
	if len(paths) != 1 {
		t.Fatalf("transcripts: %v", paths)
	}
	page := filepath.Join(t.TempDir(), "live.html")
	renderHTML(t, paths[0], page)
	dom := browse(t, bin, page, filepath.Join(artifacts(t), "live.png"))
	checkNoScript(t, dom)
	txt := text(dom)
	for _, want := range []string{"LIVE-PROMPT " + plant, "LIVE-TEXT " + plant, `LIVE-OUT <script>document.body.id="pwned"</script>`, "exit 4"} {
		if !strings.Contains(txt, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
}
