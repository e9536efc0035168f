package commands_test

import (
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/commands/ccentries"
	"github.com/ccpipe/ccpipe/lib/commands/ccextract"
	"github.com/ccpipe/ccpipe/lib/commands/ccgrep"
	"github.com/ccpipe/ccpipe/lib/commands/ccsessions"
)

// TestWindowForms runs every form of --since and --until through the
// four commands that take a time window, on the corpus (its sessions ran
// 2026-11-30 10:46-10:47 UTC; the clock says 2026-12-01 09:00 UTC): each
// form is accepted, keeps what it says, and a bad value gets one message
// everywhere.
func TestWindowForms(t *testing.T) {
	_, sessions, _ := runCmd(t, ccsessions.RunWith, corpusSystem(t, 0), "")
	cmds := []struct {
		name  string
		run   runWith
		stdin string
		args  []string
	}{
		{"cc-sessions", ccsessions.RunWith, "", nil},
		{"cc-entries", ccentries.RunWith, sessions, []string{"--types", "user"}},
		{"cc-extract", ccextract.RunWith, sessions, []string{"usage"}},
		{"cc-grep", ccgrep.RunWith, "", []string{"--any", "RESULT", "prompt"}},
		{"cc-grep", ccgrep.RunWith, sessions, []string{"--any", "RESULT", "prompt"}}, // by the records' times
	}
	for _, f := range []struct {
		flag, value string
		all         bool // keeps the whole corpus, else none of it
	}{
		{"--since", "2026-11-30T10:40:00Z", true},
		{"--since", "2026-11-30T11:40:00+01:00", true},
		{"--since", "2026-11-30T10:40", true},
		{"--since", "2026-11-30T10:40:00", true},
		{"--since", "2026-11-30", true},
		{"--since", "20261130", true},
		{"--since", "7d", true},
		{"--since", "2w", true},
		{"--since", "7d ago", true},
		{"--since", "12h", false},
		{"--since", "90m", false},
		{"--since", "today", false},
		{"--since", "yesterday", true},
		{"--until", "2026-11-30T10:50:00Z", true},
		{"--until", "2026-11-30T10:45", false},
		{"--until", "2026-11-30T10:47:59", true},
		{"--until", "2026-11-30", true},
		{"--until", "20261130", true},
		{"--until", "20261129", false},
		{"--until", "7d", false},
		{"--until", "12h", true},
		{"--until", "2w", false},
		{"--until", "today", true},
		{"--until", "yesterday", true},
	} {
		for _, c := range cmds {
			t.Run(c.name+" "+f.flag+" "+f.value+" "+map[bool]string{true: "stdin"}[c.stdin != ""], func(t *testing.T) {
				code, out, errs := runCmd(t, c.run, corpusSystem(t, 0), c.stdin, append(c.args, f.flag, f.value)...)
				if code == 2 || strings.Contains(errs, "not a time") {
					t.Fatalf("refused: exit %d: %s", code, errs)
				}
				if kept := strings.Count(out, "\n"); (kept > 0) != f.all {
					t.Errorf("kept %d records, want all: %v", kept, f.all)
				}
			})
		}
	}
	for _, c := range cmds {
		code, _, errs := runCmd(t, c.run, corpusSystem(t, 0), c.stdin, append(c.args, "--since", "last week")...)
		want := c.name + `: --since "last week": not a time (want RFC 3339, YYYY-MM-DD, YYYYMMDD, a duration ago (90m, 12h, 7d, 2w), today or yesterday)` + "\n"
		if code != 2 || !strings.HasPrefix(errs, want) {
			t.Errorf("%s --since 'last week': exit %d, %q; want 2, %q", c.name, code, errs, want)
		}
	}
}
