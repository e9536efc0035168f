package ccrender

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMasksByDefault: a key the session printed is masked on both pages
// unless --no-redact; --rules adds a site's own shape.
func TestMasksByDefault(t *testing.T) {
	key := "sk-ant-api03-" + strings.Repeat("Xq7Zk2Wv9T", 9) + "AA"
	site := "ACME_0123456789abcdef0123456789abcdef"
	b, err := os.ReadFile(alpha)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, filepath.Base(alpha))
	if err := os.WriteFile(path, bytes.ReplaceAll(b, []byte("hello-corpus"), []byte("hello-corpus "+key+" "+site)), 0o644); err != nil {
		t.Fatal(err)
	}
	rules := filepath.Join(dir, "site.rules")
	if err := os.WriteFile(rules, []byte("acme-token ACME_[0-9a-f]{32}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"md", "html"} {
		code, out, errs := run(t, "", format, path)
		if code != 0 || errs != "" || strings.Contains(out, key) || !strings.Contains(out, "hello-corpus [REDACTED:anthropic-api-key] "+site) {
			t.Errorf("%s default: exit %d %q, key shown or not masked", format, code, errs)
		}
		code, out, _ = run(t, "", format, "--rules", rules, path)
		if code != 0 || strings.Contains(out, site) || !strings.Contains(out, "[REDACTED:anthropic-api-key] [REDACTED:acme-token]") {
			t.Errorf("%s --rules: exit %d, site token shown or not masked", format, code)
		}
		code, out, _ = run(t, "", format, "--no-redact", path)
		if code != 0 || !strings.Contains(out, "hello-corpus "+key) {
			t.Errorf("%s --no-redact: exit %d, key not shown", format, code)
		}
	}
	for _, args := range [][]string{{"md", "--no-redact", "--rules", rules, path}, {"md", "--max-output-lines", "-1", path}, {"md", "--rules", filepath.Join(dir, "none"), path}} {
		if code, _, errs := run(t, "", args...); code != 2 || !strings.HasPrefix(errs, "cc-render: ") {
			t.Errorf("%v: exit %d %q, want a usage error", args, code, errs)
		}
	}
}

// TestMaxOutputLines: the corpus's large output (seq) is folded after the
// default 200 lines; --max-output-lines 0 shows it whole.
func TestMaxOutputLines(t *testing.T) {
	_, out, _ := run(t, "", "md", alpha)
	if !strings.Contains(out, "\n200\n```\n\n<details><summary>") || !strings.Contains(out, " more lines (") {
		t.Error("the long output is not folded after 200 lines")
	}
	_, out, _ = run(t, "", "md", "--max-output-lines", "0", alpha)
	if strings.Contains(out, " more lines (") {
		t.Error("--max-output-lines 0 folded")
	}
}
