// Package ccentries is the cc-entries command: the records of Claude Code
// transcripts, one per line, byte for byte as written.
package ccentries

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/records"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

const help = `usage: cc-entries [flags] [TRANSCRIPT... | -]

Streams the records of Claude Code transcripts, one JSON record per line,
byte for byte as Claude Code wrote them (no re-encoding; only a CRLF
line end is written as LF) unless --jq is
given. Transcripts come from session records on stdin (any record with a
transcript_path, such as cc-sessions output), from paths given as
arguments, or, with "-", as raw transcript lines on stdin; with neither
(a terminal or /dev/null on stdin, as in cron), from every session
cc-sessions lists, in its order. An empty pipe is no input: nothing is
read. .jsonl.gz and
.jsonl.zst files are read transparently.

Output: the transcript lines. With --with-source each line gets a first key
"cc_source":{"path","line","session_id","agent_id"} (path is null for "-";
agent_id is null outside subagent files; subagent lines also carry
"tool_use_id", the parent's Agent tool_use id from the .meta.json).
With --archive the output is one record per file written instead:
path, archive_path, status (written | appended | up_to_date), bytes,
archive_bytes. A grown transcript gets one zstd frame of its new bytes
appended to its copy; a rewritten one is copied again.
With --archive DIR --print-settings the output is the settings.json object
of a SessionEnd hook running "cc-entries --archive DIR" (this binary's
absolute path, DIR made absolute) as each session ends; stderr names the
settings file it belongs in.
With --diagnostics one JSON record goes to stderr at the end: "files" (per
transcript) and "totals": lines, records, prefiltered, blank, malformed,
malformed_lines, too_long_lines, incomplete_last_line, unknown_types,
unknown_blocks, type_mismatches, decoded, aligned.

Selection (applied in this order, per file): --types (a byte check, then
the type is confirmed), --branch, --since/--until, --tail.
--subagents prints each session's subagent transcripts after its main
transcript, oldest first, and implies --with-source.

Examples:
  # the assistant records of the newest session
  $ cc-sessions --limit 1 | cc-entries --types assistant

  # live: records of a running session as they are written
  $ cc-sessions --active | cc-entries --follow --jq 'select(.type=="user") | .message.content'

  # the active branch only, with subagents, since this morning
  $ cc-entries --branch --subagents --since 2026-05-01T08:00:00Z ~/.claude/projects/-x/ID.jsonl

  # keep zstd copies past Claude Code's 30-day cleanup
  $ cc-sessions | cc-entries --archive ~/claude-archive

  # ... and at the end of every session: the SessionEnd hook to install
  $ cc-entries --archive ~/claude-archive --print-settings

Exit status: 0 ok, 1 a transcript could not be read (the rest are still
printed), a stdin line was not a session record (malformed JSON or no
transcript_path: each is named on stderr, the first ten one by one, and the
other records are still read), or another failure, 2 usage error.`

type options struct {
	sys         cli.System
	types       []string
	withSource  bool
	subagents   bool
	window      cli.Window
	tail        int
	archive     string
	settings    bool
	follow      bool
	poll        time.Duration
	branch      bool
	diagnostics bool
	maxLine     int

	now func() time.Time
	// stopFor builds the --follow stop condition of a transcript; tests
	// replace it.
	stopFor func(sessionID, path string) func() bool
}

// Run runs cc-entries with the process environment.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunWith(cli.OS(), args, stdin, stdout, stderr)
}

// RunWith runs cc-entries in the given System.
func RunWith(sys cli.System, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := &options{now: sys.Clock, stopFor: registryStop, sys: sys}
	c := o.command()
	return c.Main(args, stdin, stdout, stderr)
}

func (o *options) command() *cli.Command {
	return &cli.Command{
		Sys:      &o.sys,
		Name:     "cc-entries",
		Short:    "a transcript's records, one per line: type filter, subagents, archives, --follow",
		Synopsis: "cc-entries [--types T,...] [--follow] [--branch] [--subagents] [--archive DIR [--print-settings]] [TRANSCRIPT... | -]",
		Help:     help,
		SetFlags: func(f *cli.Flags) {
			f.Func("types", "keep only records of these `TYPES` (comma-separated, repeatable; +NAME for a type this version does not know)", func(s string) error {
				for _, t := range strings.Split(s, ",") {
					t = strings.TrimSpace(t)
					if name, ok := strings.CutPrefix(t, "+"); ok {
						t = name // a newer Claude Code's type, taken as given
					} else if t != "" && !transcript.KnownTypes[t] {
						known := transcript.SortedKnownTypes()
						return fmt.Errorf("unknown record type %q (a type this version does not know is given as +%s); known types: %s%s",
							t, t, strings.Join(known, ", "), cli.DidYouMean(t, known))
					}
					if t != "" {
						o.types = append(o.types, t)
					}
				}
				return nil
			})
			f.BoolVar(&o.withSource, "with-source", false, `add "cc_source":{path,line,session_id,agent_id} as each record's first key`)
			f.BoolVar(&o.subagents, "subagents", false, "also the sessions' subagent transcripts (implies --with-source)")
			f.WindowVar(&o.window, "records")
			f.RecordFormats(records.IDField)
			f.IntVarP(&o.tail, "tail", "n", -1, "only the last `N` records of each transcript (with --follow, 0 prints only new records)")
			f.StringVar(&o.archive, "archive", "", "write zstd copies of the transcripts (and their subagents, tool results) under `DIR`, print what was written")
			f.BoolVar(&o.settings, "print-settings", false, "with --archive, print the settings.json object of a SessionEnd hook that archives each session as it ends (this binary's absolute path, DIR made absolute)")
			f.Requires("print-settings", "archive").Says("--print-settings prints the hook of --archive DIR: give --archive DIR with it")
			f.BoolVarP(&o.follow, "follow", "f", false, "keep printing records as they are appended, until the session ends or a signal")
			f.DurationVar(&o.poll, "poll", transcript.DefaultPoll, "with --follow, how often to check for new records (a `DURATION` such as 100ms)")
			f.Positive("poll")
			f.BoolVar(&o.branch, "branch", false, "only the records on the active conversation branch, as Claude Code rebuilds it on resume (parentUuid back from the newest record, with every record of a parallel tool call)")
			f.BoolVar(&o.diagnostics, "diagnostics", false, "decode every record and print one diagnostics record on stderr at the end")
			f.IntVar(&o.maxLine, "max-line", 0, "skip lines longer than `BYTES` (default 1 GiB)")
			for _, sel := range []string{"follow", "branch", "tail", "types", "since", "until", "with-source", "subagents", "diagnostics"} {
				f.Exclusive("archive", sel).Says("--archive copies whole sessions: it takes no selection or output flags")
			}
			f.Exclusive("branch", "follow").Says("--branch and --follow exclude each other: the active branch moves as the session runs")
		},
		Run: o.run,
		Complete: func(_ context.Context, flag string, _ []string) []string {
			if flag == "types" {
				return transcript.SortedKnownTypes()
			}
			return nil
		},
	}
}
