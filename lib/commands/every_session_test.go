package commands_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/commands/ccentries"
	"github.com/ccpipe/ccpipe/lib/commands/ccextract"
	"github.com/ccpipe/ccpipe/lib/commands/ccrender"
	"github.com/ccpipe/ccpipe/lib/commands/ccsessions"
)

// TestEverySessionWithoutInput: a command that reads sessions, given
// neither paths nor a pipe (a terminal or /dev/null, as in cron), reads
// every session as cc-sessions lists them: its output is the output of
// cc-sessions piped in. An empty pipe is still no input: nothing is read.
// (cc-hook backtest still asks for input: the session listing stays off
// cc-hook's hot path, lib/internal/depcheck's light table.)
func TestEverySessionWithoutInput(t *testing.T) {
	_, listing, _ := runCmd(t, ccsessions.RunWith, corpusSystem(t, 0), "")
	if strings.Count(listing, "\n") < 5 {
		t.Fatalf("cc-sessions lists %q", listing)
	}
	for _, tc := range []struct {
		name string
		run  runWith
		args []string
	}{
		{"cc-extract usage --sum day", ccextract.RunWith, []string{"usage", "--sum", "day", "--cost", "--since", "2026-11-01"}},
		{"cc-extract usage --sum block", ccextract.RunWith, []string{"usage", "--sum", "block", "--cost"}},
		{"cc-extract shell --errors", ccextract.RunWith, []string{"shell", "--errors"}},
		{"cc-extract prompts", ccextract.RunWith, []string{"prompts"}},
		{"cc-entries", ccentries.RunWith, []string{"--types", "user"}},
		{"cc-render md", ccrender.RunWith, []string{"md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sys := corpusSystem(t, 0, "XDG_CACHE_HOME", t.TempDir())
			code, none, errs := runCmd(t, tc.run, sys, "", tc.args...)
			wantCode, piped, _ := runCmd(t, tc.run, sys, listing, tc.args...)
			if code != wantCode || none != piped {
				t.Errorf("no input: exit %d, %d bytes (stderr %q); cc-sessions piped in: exit %d, %d bytes", code, len(none), errs, wantCode, len(piped))
			}
			if len(none) == 0 {
				t.Error("no output: the corpus has something for every case")
			}
			var out, errb bytes.Buffer
			if code := tc.run(sys, tc.args, strings.NewReader(""), &out, &errb); code != 0 || out.Len() > 0 {
				t.Errorf("empty pipe: exit %d, %q (stderr %q)", code, out.String(), errb.String())
			}
		})
	}
}
