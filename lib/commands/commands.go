// Package commands lists the cc-* commands, for what covers all of them:
// the txtar scripts (testdata/script), the docs generator
// (lib/internal/gendocs) and its field check. A new command joins all
// three (and the README's command table) by adding one entry to All.
package commands

import (
	"io"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/cccassette"
	"github.com/ccpipe/ccpipe/lib/commands/ccentries"
	"github.com/ccpipe/ccpipe/lib/commands/ccextract"
	"github.com/ccpipe/ccpipe/lib/commands/ccgrep"
	"github.com/ccpipe/ccpipe/lib/commands/cchook"
	"github.com/ccpipe/ccpipe/lib/commands/ccotel"
	"github.com/ccpipe/ccpipe/lib/commands/ccprofiles"
	"github.com/ccpipe/ccpipe/lib/commands/ccredact"
	"github.com/ccpipe/ccpipe/lib/commands/ccrender"
	"github.com/ccpipe/ccpipe/lib/commands/ccsend"
	"github.com/ccpipe/ccpipe/lib/commands/ccsessions"
	"github.com/ccpipe/ccpipe/lib/commands/ccstatusline"
)

// Command is one cc-* command.
type Command struct {
	Name string // cc-profiles
	Dir  string // its package dir from the module root; reference.md there is the doc's hand-written part
	Run  func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
	// RunWith is Run in a given System (its clock, environment, home).
	RunWith func(sys cli.System, args []string, stdin io.Reader, stdout, stderr io.Writer) int
	// Golden are globs (from the module root) of files holding the
	// command's output records as golden files check them; every field
	// they show must be documented and every documented field shown.
	// Empty, with Verbatim: no golden NDJSON output yet (the check says so).
	Golden []string
	// Verbatim are globs of golden files whose records also carry keys
	// that are not the command's own: Claude Code's transcript lines,
	// hook payloads and replies, Blackbox cassette steps, another
	// command's records, passed through or written to their schema. The
	// documented fields they show count as shown; their other keys are
	// not checked.
	Verbatim []string
}

// All is every command, in the order of the README's command table and
// completion loop, which gendocs writes from it.
var All = []Command{
	{Name: "cc-profiles", Dir: "lib/commands/ccprofiles", Run: ccprofiles.Run, RunWith: ccprofiles.RunWith,
		Golden: []string{"lib/commands/ccprofiles/testdata/*.golden"}},
	{Name: "cc-sessions", Dir: "lib/commands/ccsessions", Run: ccsessions.Run, RunWith: ccsessions.RunWith,
		Golden: []string{"lib/commands/ccsessions/testdata/*.golden"}},
	{Name: "cc-entries", Dir: "lib/commands/ccentries", Run: ccentries.Run, RunWith: ccentries.RunWith,
		Golden: []string{"lib/commands/ccentries/testdata/golden/own/*.golden"},
		// Claude Code's transcript lines, with cc_source.
		Verbatim: []string{"lib/commands/ccentries/testdata/golden/verbatim/*.golden"}},
	{Name: "cc-extract", Dir: "lib/commands/ccextract", Run: ccextract.Run, RunWith: ccextract.RunWith,
		Golden: []string{"lib/extract/testdata/golden/*/*.jsonl"}},
	{Name: "cc-grep", Dir: "lib/commands/ccgrep", Run: ccgrep.Run, RunWith: ccgrep.RunWith,
		// Session records (cc-sessions' or the input's), and --matches hit records.
		Verbatim: []string{"lib/commands/ccgrep/testdata/*.golden"}},
	{Name: "cc-send", Dir: "lib/commands/ccsend", Run: ccsend.Run, RunWith: ccsend.RunWith,
		Golden: []string{"lib/commands/ccsend/testdata/*.golden"}},
	{Name: "cc-hook", Dir: "lib/commands/cchook", Run: cchook.Run, RunWith: cchook.RunWith,
		Golden: []string{"lib/commands/cchook/testdata/check/*.golden", "lib/commands/cchook/testdata/lint/*.golden",
			"lib/commands/cchook/testdata/test/*.golden", "lib/commands/cchook/testdata/backtest/*.golden"},
		// Replies and settings in Claude Code's schema, payloads as parsed.
		Verbatim: []string{"lib/commands/cchook/testdata/run/*.golden", "lib/commands/cchook/testdata/out/*.golden"}},
	// Writes pages (md, html), no records: nothing to compare.
	{Name: "cc-render", Dir: "lib/commands/ccrender", Run: ccrender.Run, RunWith: ccrender.RunWith},
	{Name: "cc-cassette", Dir: "lib/commands/cccassette", Run: cccassette.Run, RunWith: cccassette.RunWith,
		Golden: []string{"lib/commands/cccassette/testdata/records/*.golden"},
		// Cassettes and steps in Blackbox's schema: import, convert, show --step.
		Verbatim: []string{"lib/commands/cccassette/testdata/stored/*.golden", "lib/commands/cccassette/testdata/corpus/*.ndjson"}},
	{Name: "cc-redact", Dir: "lib/commands/ccredact", Run: ccredact.Run, RunWith: ccredact.RunWith,
		Golden: []string{"lib/commands/ccredact/testdata/*.golden"},
		// The input's records, secrets replaced; --hook's replies and
		// --print-settings' object, in Claude Code's schema.
		Verbatim: []string{"lib/commands/ccredact/testdata/redacted/*.golden", "lib/commands/ccredact/testdata/hook/*.golden"}},
	{Name: "cc-statusline", Dir: "lib/commands/ccstatusline", Run: ccstatusline.Run, RunWith: ccstatusline.RunWith,
		Golden: []string{"lib/commands/ccstatusline/testdata/*.golden"}},
	{Name: "cc-otel", Dir: "lib/commands/ccotel", Run: ccotel.Run, RunWith: ccotel.RunWith,
		Golden: []string{"lib/commands/ccotel/testdata/*.golden"}},
}
