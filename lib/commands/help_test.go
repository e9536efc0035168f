package commands_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ccpipe/ccpipe/lib/commands"
)

// TestHelpFits: every command's and subcommand's -h fits 100 columns and
// one screenful or two (maxHelpLines): the details belong in the man page
// and docs/, which reference.md feeds (issue 41: cc-extract -h was 178 lines).
const maxHelpLines = 125

func TestHelpFits(t *testing.T) {
	for _, c := range commands.All {
		var doc struct {
			Subcommands []struct {
				Name string `json:"name"`
			} `json:"subcommands"`
		}
		_, out, _ := runCmd(t, c.RunWith, corpusSystem(t, 0), "", "__doc")
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s __doc: %v", c.Name, err)
		}
		runs := [][]string{{"-h"}}
		for _, s := range doc.Subcommands {
			runs = append(runs, []string{strings.TrimPrefix(s.Name, c.Name+" "), "-h"})
		}
		for _, args := range runs {
			code, help, _ := runCmd(t, c.RunWith, corpusSystem(t, 0), "", args...)
			if code != 0 || help == "" {
				t.Errorf("%s %q: exit %d, %d bytes", c.Name, args, code, len(help))
			}
			if n := strings.Count(help, "\n"); n > maxHelpLines {
				t.Errorf("%s %q: %d lines, over %d: move details to reference.md", c.Name, args, n, maxHelpLines)
			}
			for i, l := range strings.Split(help, "\n") {
				if n := utf8.RuneCountInString(l); n > 100 {
					t.Errorf("%s %q line %d: %d columns: %s", c.Name, args, i+1, n, l)
				}
			}
		}
	}
}
