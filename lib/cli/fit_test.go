package cli

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestFirstLine: what a FirstLine cell shows of a text.
func TestFirstLine(t *testing.T) {
	if got := firstLine("\n  \n  out  \nnext"); got != "out" {
		t.Errorf("firstLine = %q", got)
	}
}

// TestGenericFit: a record no layout knows fits the width: text is cut
// to 12 columns first, then trailing columns are left out and a last line
// names them; numbers are never cut, times and ids are shortened.
func TestGenericFit(t *testing.T) {
	recs := []string{
		`{"session_id":"c0a1f001-0000-4000-8000-000000000001","timestamp":"2026-11-30T10:46:46.279Z","tokens":1234567,"text":"` + strings.Repeat("long text ", 20) + `","kind":"tool_error","hook":"PreToolUse","message":"` + strings.Repeat("why ", 30) + `"}`,
	}
	for _, width := range []int{40, 60, 80, 120, 400} {
		code, out, _ := table(t, term(width, "NO_COLOR", "1"), nil, recs)
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		for _, l := range lines {
			if n := utf8.RuneCountInString(l); n > width {
				t.Errorf("width %d: a line of %d: %q", width, n, l)
			}
		}
		if !strings.Contains(lines[1], "1,234,567") || !strings.Contains(lines[1], "c0a1f001 ") || !strings.Contains(lines[1], "2026-11-30 10:46") {
			t.Errorf("width %d: numbers, ids and times as they are: %q", width, lines[1])
		}
		footer := strings.HasPrefix(lines[len(lines)-1], "(")
		if footer == strings.Contains(lines[0], "message") {
			t.Errorf("width %d: footer %v:\n%s", width, footer, out)
		}
		if footer && !strings.Contains(lines[len(lines)-1], "more") {
			t.Errorf("width %d: the footer says columns were left out: %q", width, lines[len(lines)-1])
		}
	}
	// The footer names every column left out, when there is room.
	_, out, _ := table(t, term(70, "NO_COLOR", "1"), nil, recs)
	if want := "(2 more: hook, message; --format csv or ndjson shows all)\n"; !strings.HasSuffix(out, want) {
		t.Errorf("got\n%s\nwant the footer %q", out, want)
	}
	// Into a pipe (--format table, no COLUMNS) nothing is cut or left out.
	_, out, _ = table(t, term(0), nil, recs, "--format", "table")
	if !strings.Contains(out, strings.Repeat("why ", 29)+"why") || strings.Contains(out, "…") {
		t.Errorf("a table into a pipe is whole:\n%s", out)
	}
}

// TestKeepColumn: a column marked Keep outlasts the columns before it
// when the table is too wide.
func TestKeepColumn(t *testing.T) {
	l := Layout{Columns: []Column{
		{Head: "Date", Keys: []string{"date"}},
		{Head: "Input", Keys: []string{"input_tokens"}, Kind: Count},
		{Head: "Output", Keys: []string{"output_tokens"}, Kind: Count},
		{Head: "Cost", Keys: []string{"cost_usd"}, Kind: Dollars, Keep: true},
	}}
	recs := []string{`{"date":"2026-11-29","input_tokens":1234567,"output_tokens":7654321,"cost_usd":4.2}`}
	_, out, _ := table(t, term(35, "NO_COLOR", "1"), &l, recs)
	want := "Date            Input   Cost\n2026-11-29  1,234,567  $4.20\n(1 more: --format csv shows all)\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}
