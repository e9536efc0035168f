package contract

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/commands/ccrender"
)

// A page of the corpus's alpha session with a (fake) key in its Bash
// command and output, and 250 more output lines, opened in Chromium: by
// default the DOM holds the masked text and not the key, the output's
// lines after the 200th are in a closed details block; with --no-redact
// the key is shown.
func TestRenderMasksInChromium(t *testing.T) {
	bin := chromium(t)
	key := "sk-ant-api03-" + strings.Repeat("Xq7Zk2Wv9T", 9) + "AA"
	src := filepath.Join("..", "..", "..", "testdata", "corpus", "claude", "projects", "-home-dev-projects-alpha", "c0a1f001-0000-4000-8000-000000000001.jsonl")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var lines strings.Builder
	for i := 1; i <= 250; i++ {
		lines.WriteString(`\nmore-output-line`)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(path, bytes.ReplaceAll(b, []byte("hello-corpus"), []byte("hello-corpus KEY="+key+lines.String())), 0o644); err != nil {
		t.Fatal(err)
	}
	closedMore := regexp.MustCompile(`<details class="more"><summary>51 more lines \([^)]*\)</summary>`)
	for _, tt := range []struct {
		name   string
		args   []string
		masked bool
	}{{"default", nil, true}, {"no-redact", []string{"--no-redact"}, false}} {
		t.Run(tt.name, func(t *testing.T) {
			page := filepath.Join(dir, tt.name+".html")
			var stdout, errb bytes.Buffer
			if code := ccrender.Run(append([]string{"html", "--out", page, path}, tt.args...), nil, &stdout, &errb); code != 0 {
				t.Fatalf("cc-render: exit %d: %s", code, errb.String())
			}
			dom := browse(t, bin, page, "")
			checkNoScript(t, dom)
			txt := text(dom)
			if got := strings.Contains(txt, key); got == tt.masked {
				t.Errorf("key on the page: %v, want %v", got, !tt.masked)
			}
			if got := strings.Contains(txt, "KEY=[REDACTED:anthropic-api-key]"); got != tt.masked {
				t.Errorf("masked text on the page: %v, want %v", got, tt.masked)
			}
			if !closedMore.MatchString(dom) {
				t.Error("no closed details block with the output's last 51 lines")
			}
		})
	}
}
