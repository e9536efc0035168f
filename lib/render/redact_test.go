package render

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/secrets"
)

const alpha = "../../testdata/corpus/claude/projects/-home-dev-projects-alpha/c0a1f001-0000-4000-8000-000000000001.jsonl"

// withText is the corpus's alpha session with its Bash call's command and
// output ("hello-corpus") followed by text (JSON-escaped here).
func withText(t *testing.T, text string) string {
	t.Helper()
	b, err := os.ReadFile(alpha)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(b, []byte("hello-corpus")) < 2 {
		t.Fatal("the corpus's alpha session no longer says hello-corpus")
	}
	path := filepath.Join(t.TempDir(), filepath.Base(alpha))
	out := bytes.ReplaceAll(b, []byte("hello-corpus"), []byte("hello-corpus "+text))
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func renderWith(t *testing.T, opts Options, path string) string {
	t.Helper()
	var out bytes.Buffer
	d, err := NewDoc(&out, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Session(context.Background(), Session{Path: path}); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestRedact: with Redact, a key in a command and its output shows as
// [REDACTED:<kind>] in both formats; without, as it is.
func TestRedact(t *testing.T) {
	key := "sk-ant-api03-" + strings.Repeat("Xq7Zk2Wv9T", 9) + "AA"
	tok := "ghp_Ab3dEf7hK9" + strings.Repeat("Qz8xWv2uT5", 3)[:26]
	path := withText(t, "ANTHROPIC_API_KEY="+key+" GH_TOKEN="+tok)
	for _, format := range Formats {
		page := renderWith(t, Options{Format: format, Redact: secrets.Default}, path)
		if strings.Contains(page, key) || strings.Contains(page, tok) {
			t.Errorf("%s: a secret is on the masked page", format)
		}
		for _, want := range []string{"ANTHROPIC_API_KEY=[REDACTED:anthropic-api-key] GH_TOKEN=[REDACTED:github-token]"} {
			if n := strings.Count(page, want); n < 2 {
				t.Errorf("%s: %q %d times, want it in the command and the output", format, want, n)
			}
		}
		if page := renderWith(t, Options{Format: format}, path); !strings.Contains(page, key) || !strings.Contains(page, tok) {
			t.Errorf("%s: without Redact the secrets are not shown", format)
		}
	}
}

// TestFoldOutput: an output over MaxOutputLines shows its first lines,
// the rest in a closed details block, in both formats; a short one whole.
func TestFoldOutput(t *testing.T) {
	var lines []string
	for i := 1; i <= 250; i++ {
		lines = append(lines, fmt.Sprintf("line-%03d", i))
	}
	path := withText(t, strings.Join(lines, `\n`))
	md := renderWith(t, Options{Format: "md", MaxOutputLines: 200}, path)
	// The output "hello-corpus line-001\n...line-250": 200 lines shown,
	// the last of them with its newline.
	head := "```text\nhello-corpus line-001\n"
	i := strings.Index(md, head)
	if i < 0 {
		t.Fatalf("no output fence:\n%s", md)
	}
	want := "line-200\n```\n\n<details><summary>50 more lines (449 bytes)</summary>\n\n```text\nline-201\n"
	if !strings.Contains(md[i:], want) {
		t.Errorf("markdown fold: want %q in\n%s", want, md[i:min(len(md), i+3000)])
	}
	html := renderWith(t, Options{Format: "html", MaxOutputLines: 200}, path)
	if !strings.Contains(html, "line-200\n</pre>") || !strings.Contains(html, `<details class="more"><summary>50 more lines (449 bytes)</summary>`) {
		t.Errorf("html fold missing")
	}
	if err := checkMarkup(html); err != nil {
		t.Error(err)
	}
	for _, format := range Formats {
		if page := renderWith(t, Options{Format: format, MaxOutputLines: 300}, path); strings.Contains(page, "50 more lines") {
			t.Errorf("%s: folded under the limit", format)
		}
	}
}

func TestFoldAt(t *testing.T) {
	tests := []struct {
		t          string
		n          int
		head, rest string
		more       int
	}{
		{"a\nb\nc\n", 0, "a\nb\nc\n", "", 0},
		{"a\nb\nc\n", 3, "a\nb\nc\n", "", 0},
		{"a\nb\nc", 3, "a\nb\nc", "", 0},
		{"a\nb\nc\n", 2, "a\nb\n", "c\n", 1},
		{"a\nb\nc", 1, "a\n", "b\nc", 2},
		{"", 1, "", "", 0},
	}
	for _, tt := range tests {
		head, rest, more := foldAt(tt.t, tt.n)
		if head != tt.head || rest != tt.rest || more != tt.more {
			t.Errorf("foldAt(%q, %d) = %q, %q, %d; want %q, %q, %d", tt.t, tt.n, head, rest, more, tt.head, tt.rest, tt.more)
		}
	}
}
