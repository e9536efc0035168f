package cli

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"

	"github.com/ccpipe/ccpipe/lib/numfmt"
)

// recordTable holds the records of --format table, csv or tsv and writes
// them at the end: a table needs every row to size its columns, csv its
// header. One writer for every command; the command says how its record
// kind shows (Layout), else a table shows each record's scalar fields.
type recordTable struct {
	out    io.Writer
	format string // table, csv or tsv
	chosen bool   // asked for with --format (not the terminal default)
	width  int    // the terminal's columns; 0: not cut
	color  bool
	loc    *time.Location
	layout *Layout
	jq     bool                  // the records are --jq's: the layout applies only to its own fields
	ids    func(key string) bool // RecordFormats': a generic table's id fields

	rows []record
	keys []string // every key, in order of first appearance
	seen map[string]bool
}

// record is one record's fields in their order, values as JSON.
type record struct {
	keys []string
	vals map[string]json.RawMessage
}

// add holds one record (a JSON line; a result of --jq that is not an
// object is shown as one field, "value").
func (t *recordTable) add(line []byte) error {
	r, err := decodeRecord(line)
	if err != nil {
		return err
	}
	if t.seen == nil {
		t.seen = map[string]bool{}
	}
	for _, k := range r.keys {
		if !t.seen[k] {
			t.seen[k] = true
			t.keys = append(t.keys, k)
		}
	}
	t.rows = append(t.rows, r)
	return nil
}

// field is the record's value of a column key: a key with dots names a
// nested field ("first_failure.name"); nil when the record has none.
func (r record) field(k string) json.RawMessage {
	name, rest, nested := strings.Cut(k, ".")
	v := r.vals[name]
	for nested && len(v) > 0 {
		var obj map[string]json.RawMessage
		if json.Unmarshal(v, &obj) != nil {
			return nil
		}
		name, rest, nested = strings.Cut(rest, ".")
		v = obj[name]
	}
	return v
}

// has says whether some record has the field k: a nested one with a
// value (not null), as the column would show it.
func (t *recordTable) has(k string) bool {
	if !strings.Contains(k, ".") {
		return t.seen[k]
	}
	return slices.ContainsFunc(t.rows, func(r record) bool {
		v := bytes.TrimSpace(r.field(k))
		return len(v) > 0 && string(v) != "null"
	})
}

// topKey is the record field a column key is in: "first_failure" for
// "first_failure.name".
func topKey(k string) string {
	top, _, _ := strings.Cut(k, ".")
	return top
}

func decodeRecord(line []byte) (record, error) {
	r := record{vals: map[string]json.RawMessage{}}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return r, fmt.Errorf("record for the table: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		r.keys = []string{"value"}
		r.vals["value"] = append(json.RawMessage(nil), bytes.TrimSpace(line)...)
		return r, nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return r, fmt.Errorf("record for the table: %w", err)
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return r, fmt.Errorf("record for the table: %w", err)
		}
		if _, dup := r.vals[k]; !dup {
			r.keys = append(r.keys, k)
		}
		r.vals[k] = v
	}
	return r, nil
}

// write writes the held records out in the table's format.
func (t *recordTable) write() error {
	w := bufio.NewWriter(t.out)
	var err error
	if t.format == "table" {
		err = t.writeTable(w)
	} else {
		err = t.writeCSV(w)
	}
	if err != nil {
		return err
	}
	return w.Flush()
}

// writeCSV writes every field of the records, exact, under a header of
// the field names: RFC 4180 quoting, a tab between fields for tsv. A
// nested value is its JSON, a null an empty field; a text a spreadsheet
// would run as a formula starts with ' (inert).
func (t *recordTable) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if t.format == "tsv" {
		cw.Comma = '\t'
	}
	head := make([]string, len(t.keys))
	for i, k := range t.keys {
		head[i] = inert(k)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	row := make([]string, len(t.keys))
	for _, r := range t.rows {
		for i, k := range t.keys {
			row[i] = plain(r.vals[k])
			if v := bytes.TrimSpace(r.vals[k]); len(v) > 0 && v[0] == '"' {
				row[i] = inert(row[i]) // a number's - is its sign, not a formula
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// inert is a csv or tsv cell a spreadsheet opens as text: one that starts
// with = + - @, a tab or a carriage return gets a ' before it, as OWASP's
// CSV injection guidance says (a prompt "=HYPERLINK(...)" would otherwise
// run when the file is opened). Spreadsheets show the cell without the '.
func inert(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// plain is a JSON value as a csv field: a string unquoted, null empty,
// anything else its JSON text.
func plain(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) == 0 || string(v) == "null":
		return ""
	case v[0] == '"':
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	return string(v)
}

// columns is the table's columns: the layout's that some record has, else
// every scalar field (a generic record).
func (t *recordTable) columns() []Column {
	if t.layout != nil && (!t.jq || t.layoutOnly()) {
		var cols []Column
		for _, c := range t.layout.Columns {
			for _, k := range c.Keys {
				if t.has(k) {
					cols = append(cols, c)
					break
				}
			}
		}
		if len(cols) > 0 {
			return cols
		}
	}
	var cols []Column
	for _, k := range t.keys {
		scalar, ints := false, true
		for _, r := range t.rows {
			v := bytes.TrimSpace(r.vals[k])
			if len(v) == 0 || string(v) == "null" {
				continue
			}
			switch v[0] {
			case '{', '[':
				continue
			case '"', 't', 'f':
				ints = false
			default:
				if _, err := strconv.ParseInt(string(v), 10, 64); err != nil {
					ints = false
				}
			}
			scalar = true
		}
		if !scalar {
			continue // only nested values: not for a table
		}
		kind := genericKind(k, t.rows, t.ids)
		if ints {
			kind = Count
		}
		cols = append(cols, Column{Head: k, Keys: []string{k}, Kind: kind})
	}
	return cols
}

// layoutOnly says whether every field of the records is one a layout
// column shows: --jq kept the kind's fields, so its columns still apply
// (any other field, and the table is jq's records' own).
func (t *recordTable) layoutOnly() bool {
	for _, k := range t.keys {
		if !slices.ContainsFunc(t.layout.Columns, func(c Column) bool {
			return slices.ContainsFunc(c.Keys, func(ck string) bool { return topKey(ck) == k })
		}) {
			return false
		}
	}
	return true
}

// cell is one value as the table shows it.
func (t *recordTable) cell(r record, c Column) string {
	var v json.RawMessage
	for _, k := range c.Keys {
		if x := bytes.TrimSpace(r.field(k)); len(x) > 0 && string(x) != "null" {
			v = x
			break
		}
	}
	if v == nil {
		return ""
	}
	if c.Show != nil {
		return c.Show(v)
	}
	s := plain(v)
	switch c.Kind {
	case FirstLine:
		return firstLine(s)
	case Count:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return numfmt.Thousands(n)
		}
	case Dollars:
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return numfmt.Dollars(f)
		}
	case Time:
		if tm, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return tm.In(t.loc).Format("2006-01-02 15:04")
		}
	case Bytes:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return size(n)
		}
	case IDPrefix:
		if len(s) > 8 {
			return s[:8]
		}
	case Text:
		var list []string
		switch {
		case v[0] == '[' && json.Unmarshal(v, &list) == nil:
			s = strings.Join(list, ", ")
		case v[0] == '[' || v[0] == '{':
			s = cut(s, nestedWidth) // a nested value beside scalars: its start
		}
	}
	return oneLine(s)
}

// total is a Total-row cell: the column's sum, display only (the exact
// sums are the records').
func (t *recordTable) total(c Column) string {
	var n int64
	var f float64
	seen := false
	for _, r := range t.rows {
		for _, k := range c.Keys {
			s := plain(r.field(k))
			if s == "" {
				continue
			}
			seen = true
			if c.Kind == Dollars {
				x, _ := strconv.ParseFloat(s, 64)
				f += x
			} else if x, err := strconv.ParseInt(s, 10, 64); err == nil {
				n += x
			}
			break
		}
	}
	switch {
	case !seen:
		return "" // nothing to add (a cost no message has): not $0.00
	case c.Kind == Dollars:
		return numfmt.Dollars(f)
	}
	return numfmt.Thousands(n)
}

func (t *recordTable) writeTable(w io.Writer) error {
	cols := t.columns()
	if len(cols) == 0 {
		return nil
	}
	head := make([]string, len(cols))
	for i, c := range cols {
		head[i] = visible(oneLine(c.Head))
	}
	body := make([][]string, len(t.rows))
	hits := make([][]*hit, len(t.rows))
	for i, r := range t.rows {
		body[i] = make([]string, len(cols))
		hits[i] = make([]*hit, len(cols))
		for j, c := range cols {
			if h := t.hitCell(r, c); h != nil {
				hits[i][j] = h
				body[i][j] = h.pre + h.hit + h.post
				continue
			}
			body[i][j] = visible(t.cell(r, c))
		}
	}
	var foot []string
	if t.layout != nil && t.layout.Total && slices.ContainsFunc(cols, func(c Column) bool { return c.Total }) {
		foot = make([]string, len(cols))
		for j, c := range cols {
			if c.Total {
				foot[j] = t.total(c)
			}
		}
		foot[0] = "Total"
	}
	widths := make([]int, len(cols))
	for _, row := range append(append([][]string{head}, body...), foot) {
		for j, s := range row {
			widths[j] = max(widths[j], textWidth(s))
		}
	}
	kept, left := t.fit(cols, widths)
	cols, widths = pick(cols, kept), pick(widths, kept)
	line := func(row []string, marks []*hit, bold bool) {
		row = pick(row, kept)
		if marks != nil {
			marks = pick(marks, kept)
		}
		var b strings.Builder
		for j, s := range row {
			var pad string
			switch {
			case marks != nil && marks[j] != nil:
				var n int
				s, n = marks[j].fit(widths[j], t.color)
				pad = strings.Repeat(" ", max(0, widths[j]-n))
			case cols[j].Kind == Path:
				s = cutLeft(s, widths[j])
			default:
				s = cut(s, widths[j])
			}
			if pad == "" {
				pad = strings.Repeat(" ", max(0, widths[j]-textWidth(s)))
			}
			if j > 0 {
				b.WriteString("  ")
			}
			if right(cols[j].Kind) {
				b.WriteString(pad + s)
			} else if j < len(row)-1 {
				b.WriteString(s + pad)
			} else {
				b.WriteString(s)
			}
		}
		s := strings.TrimRight(b.String(), " ")
		if bold && t.color {
			s = "\x1b[1m" + s + "\x1b[0m"
		}
		fmt.Fprintln(w, s)
	}
	line(head, nil, true)
	for i, row := range body {
		line(row, hits[i], false)
	}
	if foot != nil {
		rule := 0
		for _, n := range widths {
			rule += n
		}
		fmt.Fprintln(w, strings.Repeat("─", rule+2*(len(widths)-1)))
		line(foot, nil, true)
	}
	if len(left) > 0 {
		fmt.Fprintln(w, footer(left, t.width))
	}
	return nil
}

// fit makes the table fit the width: it narrows the widest text column,
// a character at a time, down to 12 characters at least (numbers, times
// and ids are never cut); when that is not enough it leaves out columns,
// the last first but those marked Keep (a sum's cost) only after the
// others, and returns their heads. The first column is always kept: a
// first column of numbers wider than the terminal wraps.
func (t *recordTable) fit(cols []Column, widths []int) ([]bool, []string) {
	keep := make([]bool, len(cols))
	for i := range keep {
		keep[i] = true
	}
	if t.width <= 0 {
		return keep, nil
	}
	var order []int // the columns in the order they are left out
	for _, pass := range []bool{false, true} {
		for j := len(cols) - 1; j > 0; j-- {
			if cols[j].Keep == pass {
				order = append(order, j)
			}
		}
	}
	for n := 0; ; n++ {
		var c []Column
		var w []int
		for j := range cols {
			if keep[j] {
				c, w = append(c, cols[j]), append(w, widths[j])
			}
		}
		if narrow(c, w, t.width) || n == len(order) {
			var left []string
			k := 0
			for j := range cols {
				if keep[j] {
					widths[j] = w[k] // as narrowed
					k++
				} else {
					left = append(left, cols[j].Head)
				}
			}
			return keep, left
		}
		keep[order[n]] = false
	}
}

// pick is the elements of l that keep marks.
func pick[T any](l []T, keep []bool) []T {
	var out []T
	for i, v := range l {
		if keep[i] {
			out = append(out, v)
		}
	}
	return out
}

// narrow narrows the text columns of widths until the table fits width,
// and says whether it does.
func narrow(cols []Column, widths []int, width int) bool {
	const minText = 12
	for {
		total := 2 * (len(widths) - 1)
		for _, n := range widths {
			total += n
		}
		if total <= width {
			return true
		}
		widest, second := -1, minText
		for j, c := range cols {
			if !cuttable(c.Kind) || widths[j] <= minText {
				continue
			}
			if widest < 0 || widths[j] > widths[widest] {
				if widest >= 0 {
					second = max(second, widths[widest])
				}
				widest = j
			} else {
				second = max(second, widths[j])
			}
		}
		if widest < 0 {
			return false // nothing left to narrow
		}
		// Down to the next widest at most: the widest columns end up even.
		widths[widest] -= min(total-width, max(1, widths[widest]-second))
	}
}

// footer is the line under a table that left columns out: it names them
// (the list gives way to the width) and says how to see them all.
func footer(left []string, width int) string {
	pre, post := fmt.Sprintf("(%d more: ", len(left)), "; --format csv or ndjson shows all)"
	room := width - textWidth(pre) - textWidth(post)
	if room >= 8 {
		return pre + cut(strings.Join(left, ", "), room) + post
	}
	return cut(fmt.Sprintf("(%d more: --format csv shows all)", len(left)), width)
}

// cuttable says whether a column's cells may be cut with …: text may,
// numbers, times, sizes and ids may not.
func cuttable(k CellKind) bool {
	switch k {
	case Text, Path, FirstLine:
		return true
	}
	return false
}

// genericKind is how a generic record's field shows: an id (the
// command's ids rule) as its prefix, a field whose every value is an RFC
// 3339 time as a time, else as text.
func genericKind(k string, rows []record, ids func(string) bool) CellKind {
	if ids != nil && ids(k) {
		return IDPrefix
	}
	seen := false
	for _, r := range rows {
		v := bytes.TrimSpace(r.vals[k])
		if len(v) == 0 || string(v) == "null" {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			return Text
		}
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			return Text
		}
		seen = true
	}
	if seen {
		return Time
	}
	return Text
}

func right(k CellKind) bool { return k == Count || k == Dollars || k == Bytes }

// nestedWidth bounds a nested value shown in a text column.
const nestedWidth = 40

// cut shortens s to n columns, the last one …
func cut(s string, n int) string {
	if textWidth(s) <= n {
		return s
	}
	w := 0
	for i, r := range s {
		if w+runeWidth(r) > n-1 {
			return s[:i] + "…"
		}
		w += runeWidth(r)
	}
	return s
}

// cutLeft shortens s to n columns, the first one …
func cutLeft(s string, n int) string {
	if textWidth(s) <= n {
		return s
	}
	r := []rune(s)
	w, i := 0, len(r)
	for i > 0 && w+runeWidth(r[i-1]) <= n-1 {
		i--
		w += runeWidth(r[i])
	}
	return "…" + string(r[i:])
}

// textWidth is how many terminal columns s takes: a CJK character two,
// a combining mark none.
func textWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me):
		return 0
	case r >= 0x1100:
		if k := width.LookupRune(r).Kind(); k == width.EastAsianWide || k == width.EastAsianFullwidth {
			return 2
		}
	}
	return 1
}

// firstLine is the first line of s that is not blank, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// oneLine puts a text on one line: each line break, with the blanks
// around it, becomes one space (a tab elsewhere stays, and shows as →).
func oneLine(s string) string {
	if !strings.ContainsFunc(s, lineBreak) {
		return s
	}
	var parts []string
	for _, l := range strings.FieldsFunc(s, lineBreak) {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}

func lineBreak(r rune) bool { return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' }

// visible is the one rule for what a table cell may print: the text a
// record holds must neither drive the terminal (an escape sequence in a
// tool's output) nor hide or reorder what a person reads (bidi overrides,
// zero-width characters). A tab shows as →, as Claude Code's Read tool
// shows a line number's tab; every other control or format character
// (Unicode Cc, Cf, Zl, Zp) as its escape, \x1b or \u202e; a byte that is
// not UTF-8 as \xff. Line breaks are oneLine's. csv, tsv and NDJSON keep
// the text exact.
func visible(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, hidden) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r == '\t':
			b.WriteString("→")
		case r < 0x80 && hidden(r):
			fmt.Fprintf(&b, "\\x%02x", r)
		case hidden(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// hidden says whether r is a control or format character: one a terminal
// acts on or draws as nothing.
func hidden(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

// size is a byte count as ls -h writes it: 980B, 12.4K, 3.1M, 2.0G.
func size(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + "B"
	}
	f := float64(n)
	for _, u := range []string{"K", "M", "G", "T"} {
		f /= unit
		if f < unit || u == "T" {
			return strconv.FormatFloat(f, 'f', 1, 64) + u
		}
	}
	return ""
}

// Fit is a line of text as a table cell shows it, for a command that
// writes its own text for people: its characters shown by the tables'
// one rule for what a cell may print, cut with … to n columns (n <= 0:
// not cut). Line breaks are the caller's: s is one line.
func Fit(s string, n int) string {
	s = visible(s)
	if n > 0 {
		s = cut(s, n)
	}
	return s
}

// FitPath is Fit for a path: cut on the left (…/dir/file) as a Path
// column is, so its end, the file name, stays in sight.
func FitPath(s string, n int) string {
	s = visible(s)
	if n > 0 {
		s = cutLeft(s, n)
	}
	return s
}
