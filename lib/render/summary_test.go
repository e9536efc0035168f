package render

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mdWithToolName renders, as Markdown, a session whose one tool call is
// named name.
func mdWithToolName(t *testing.T, name string) string {
	t.Helper()
	line := func(v map[string]any) string {
		b, _ := json.Marshal(v)
		return string(b) + "\n"
	}
	p := filepath.Join(t.TempDir(), "11111111-2222-4333-8444-555555555555.jsonl")
	data := line(map[string]any{"type": "user", "uuid": "u1", "timestamp": "2026-01-01T00:00:00.000Z", "sessionId": "s",
		"message": map[string]any{"role": "user", "content": "go"}}) +
		line(map[string]any{"type": "assistant", "uuid": "u2", "timestamp": "2026-01-01T00:00:01.000Z", "sessionId": "s",
			"message": map[string]any{"role": "assistant", "id": "m1", "content": []any{map[string]any{"type": "tool_use", "id": "t1", "name": name, "input": map[string]any{"x": name}}}}}) +
		line(map[string]any{"type": "user", "uuid": "u3", "timestamp": "2026-01-01T00:00:02.000Z", "sessionId": "s",
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}}}})
	os.WriteFile(p, []byte(data), 0o644)
	var out bytes.Buffer
	d, _ := NewDoc(&out, Options{Format: "md"})
	if err := d.Session(context.Background(), Session{Path: p}); err != nil {
		t.Fatal(err)
	}
	d.Close()
	return out.String()
}

// checkSummaries: every <summary> closes on its own line. A line break
// inside one ends GitHub's HTML block at the blank line, and what follows
// is read as Markdown: headings, remote images, fences.
func checkSummaries(md string) (string, bool) {
	for _, l := range strings.Split(md, "\n") {
		i := strings.Index(l, "<summary>")
		if i < 0 {
			continue
		}
		j := strings.Index(l[i:], "</summary>")
		if j < 0 || strings.ContainsRune(l[i:i+j], '\r') {
			return l, false
		}
	}
	return "", true
}

func TestMarkdownToolNameBlankLines(t *testing.T) {
	md := mdWithToolName(t, "Bash\n\n# Injected\n\n![remote](https://evil.example/x.png)\n\n```\n")
	if l, ok := checkSummaries(md); !ok {
		t.Fatalf("a <summary> is cut by the tool name: %q\n%s", l, md)
	}
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "# Injected") || strings.HasPrefix(l, "![remote]") {
			t.Errorf("the tool name injected %q", l)
		}
	}
}

func FuzzMarkdownToolName(f *testing.F) {
	for _, s := range []string{"Bash", "a\n\nb", "x\r\n\r\n# h", "\n```\n", "<b>\n\n</details>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if l, ok := checkSummaries(mdWithToolName(t, name)); !ok {
			t.Fatalf("%q cuts a <summary>: %q", name, l)
		}
	})
}
