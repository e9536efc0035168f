package commands_test

import (
	"os"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/commands/ccextract"
	"github.com/ccpipe/ccpipe/lib/commands/ccsessions"
)

// TestReadmeFirstTable checks that the table the README opens with is
// what the command prints on the bundled corpus today: it is the first
// thing a reader sees, and an output that changed (a merged rule listing
// one more session) leaves it stale without any golden file noticing.
func TestReadmeFirstTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const cmd = "$ cc-sessions | cc-extract usage --sum session --cost\n"
	i := strings.Index(string(readme), cmd)
	if i < 0 {
		t.Fatalf("README lost its first example %q", cmd)
	}
	shown := string(readme[i+len(cmd):])
	shown = shown[:strings.Index(shown, "```")]

	_, sessions, _ := runCmd(t, ccsessions.RunWith, corpusSystem(t, 0), "")
	code, out, errs := runCmd(t, ccextract.RunWith, corpusSystem(t, 200, "NO_COLOR", "1"), sessions,
		"usage", "--sum", "session", "--cost")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// The footer note comes on stderr, after the table.
	if out += errs; out != shown {
		t.Errorf("README shows\n%s\nthe command prints\n%s", shown, out)
	}
}
