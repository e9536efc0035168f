package commands_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/commands/ccextract"
	"github.com/ccpipe/ccpipe/lib/commands/ccrender"
	"github.com/ccpipe/ccpipe/lib/commands/ccsessions"
	"github.com/ccpipe/ccpipe/lib/commands/ccstatusline"
)

// TestMoneyOneFormat: one amount reads the same in a table, a page and
// the status line (numfmt.Dollars): session c0a1f004 of the corpus cost
// $0.0008 (one Opus call), which a table once showed as $0.00.
func TestMoneyOneFormat(t *testing.T) {
	const want = "$0.0008"
	_, list, _ := runCmd(t, ccsessions.RunWith, corpusSystem(t, 0), "", "--find", "c0a1f004")
	code, table, errs := runCmd(t, ccextract.RunWith, corpusSystem(t, 160, "NO_COLOR", "1"), list, "usage", "--sum", "session", "--cost")
	if code != 0 || !strings.Contains(table, "  "+want+"\n") {
		t.Errorf("usage --sum session --cost table: exit %d %s\n%s", code, errs, table)
	}
	transcript := filepath.Join("..", "..", "testdata", "corpus", "claude", "projects", "-home-dev-projects-gamma", "c0a1f004-0000-4000-8000-000000000004.jsonl")
	code, page, errs := runCmd(t, ccrender.RunWith, corpusSystem(t, 0), "", "md", transcript)
	if code != 0 || !strings.Contains(page, " · "+want) {
		t.Errorf("cc-render md: exit %d %s\n%.400s", code, errs, page)
	}
	payload := `{"session_id":"s1","model":{"display_name":"Opus 5.5"},"cost":{"total_cost_usd":0.0008}}`
	code, line, errs := runCmd(t, ccstatusline.RunWith, corpusSystem(t, 0), payload, "--no-cache", "--template", "{{usd .session_cost_usd}}")
	if code != 0 || line != want+"\n" {
		t.Errorf("cc-statusline usd: exit %d %s %q", code, errs, line)
	}
}
