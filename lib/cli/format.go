package cli

import (
	"encoding/json"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ccpipe/ccpipe/lib/syncwriter"
)

// Formats are the values of --format: NDJSON streams; the others hold the
// records and write them at the end.
var Formats = []string{"ndjson", "table", "csv", "tsv"}

// RecordFormats registers --format on a command whose stdout is records.
// The default is gh's: a table when stdout is a terminal, NDJSON
// otherwise (and with --jq, jq's own output). ids says which fields of a
// record shown without a layout (no Layout, or --jq's own records) are
// ids, shown as their first 8 characters (nil: none): the command's
// knowledge of its records, not lib/cli's.
func (f *Flags) RecordFormats(ids func(key string) bool) {
	f.ids = ids
	f.fs.String("format", "", "print records as `FORMAT`: ndjson, table, csv or tsv (default: table on a terminal, else ndjson; with --jq, jq's output)")
}

// setFormat picks the output format from --format, --jq and whether
// stdout is a terminal (asked through the System).
func (o *Output) setFormat(f *Flags, sys *System, stdout io.Writer) error {
	fl := f.fs.Lookup("format")
	if fl == nil {
		return nil
	}
	s := sys
	width, term := terminal(s, stdout)
	o.term = term
	format := fl.Value.String()
	chosen := format != ""
	switch {
	case chosen && !slices.Contains(Formats, format):
		return Usagef("--format %q: want one of %s", format, strings.Join(Formats, ", "))
	case !chosen && (f.JQ != "" || !term):
		format = "ndjson"
	case !chosen:
		format = "table"
	}
	if format == "ndjson" {
		return nil
	}
	if !term {
		width = 0 // a table into a file or pipe is not cut...
	}
	if n, err := strconv.Atoi(s.Env("COLUMNS")); err == nil && n > 0 && width == 0 {
		width = n // ...unless COLUMNS says how wide
	}
	loc, _ := ZoneFlag(*s, "") // the System's zone, else TZ
	o.tab = &recordTable{
		out: stdout, format: format, chosen: chosen, width: width,
		color: term && s.Env("NO_COLOR") == "" && s.Env("TERM") != "dumb",
		loc:   loc, jq: f.JQ != "", ids: f.ids,
	}
	return nil
}

// terminal asks sys (else the OS) whether w is a terminal, and its width.
func terminal(sys *System, w io.Writer) (int, bool) {
	if sys.Terminal != nil {
		return sys.Terminal(w)
	}
	w = syncwriter.Unwrap(w)
	if !IsTerminal(w) {
		return 0, false
	}
	return termWidth(w.(*os.File)), true
}

// Endless tells the output that the records will not end (--follow): a
// table, written at the end, would never show. A table by default falls
// back to NDJSON; one asked for with --format is a usage error.
func (o *Output) Endless(why string) error {
	if o.tab == nil {
		return nil
	}
	if o.tab.chosen {
		return Usagef("--format %s writes the records at the end, and %s never ends: use --format ndjson", o.tab.format, why)
	}
	o.tab = nil
	return nil
}

// Stream keeps the records NDJSON on a terminal too, unless --format asks
// for another format: for records that are the next command's input, not
// a person's reading (cc-redact's masked transcript, a settings object).
func (o *Output) Stream() {
	if o.tab != nil && !o.tab.chosen {
		o.tab = nil
	}
}

// SetLayout chooses the table's columns for the records to come (a
// command knows its record kinds); without one a table shows each
// record's scalar fields, as it does with --jq unless jq kept only fields
// the layout shows. It changes nothing for NDJSON, csv and tsv.
func (o *Output) SetLayout(l Layout) {
	o.empty = l.Empty
	if o.tab != nil {
		o.tab.layout = &l
		if l.Zone != nil {
			o.tab.loc = l.Zone
		}
	}
}

// finish writes a held table out (what was gathered, also after a
// failure) and flushes.
func (o *Output) finish() error {
	o.stopJQ()
	if o.tab != nil && len(o.tab.rows) > 0 {
		if err := o.check(o.tab.write()); err != nil {
			return err
		}
	}
	return o.Flush()
}

// Layout is how a record kind shows as a table.
type Layout struct {
	Columns []Column
	// Total adds a Total row that sums the columns marked Total.
	Total bool
	// Zone shows Time cells in this zone (nil: the System's).
	Zone *time.Location
	// Empty is what a run with no record of the kind says on stderr when
	// stdout is a terminal ("no sessions"; default "no records").
	Empty string
}

// Column is one table column: the first of Keys the record has (not
// null) shows, as Kind says; a key with dots names a nested field
// ("first_failure.name"). A column no record has is left out.
type Column struct {
	Head  string
	Keys  []string
	Kind  CellKind
	Total bool
	// Keep is left out only after the other columns when the table is too
	// wide for the terminal (the others go last column first).
	Keep bool
	// Show, when set, is the cell's text of the value: the command's own
	// reading of it (a message's content blocks, a tool's input), cut
	// like Text.
	Show func(json.RawMessage) string
	// Hit, when set, names the record's fields that say where a hit lies
	// in the cell's text: its start and end in characters, as jq slices
	// a string. The cell is cut around the hit, which stays in sight, and
	// on a terminal with colour the hit shows in bold red (hit.go).
	Hit [2]string
}

// CellKind says how a value shows in a table.
type CellKind int

const (
	Text      CellKind = iota // as it is, on one line; cut with … to fit the width
	Count                     // an integer with thousands separators, right-aligned
	Dollars                   // money as numfmt.Dollars writes it: $1,234.57, $0.0042 (for reading only)
	Time                      // an RFC 3339 time as 2006-01-02 15:04 in the zone
	Bytes                     // a size: 980B, 12.4K, 3.1M
	IDPrefix                  // the first 8 characters of an id
	Path                      // text whose end matters: cut on the left, …/projects/app
	FirstLine                 // text whose first non-blank line is enough (a command's output)
)
