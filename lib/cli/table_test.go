package cli

import (
	"fmt"
	"github.com/ccpipe/ccpipe/lib/records"
	"io"
	"strings"
	"testing"
)

func TestCells(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{size(980), "980B"}, {size(12700), "12.4K"}, {size(3 << 20), "3.0M"},
		{cut("abcdef", 4), "abc…"}, {cutLeft("/home/dev/app", 6), "…v/app"}, {cutLeft("app", 6), "app"}, {cut("abc", 4), "abc"}, {cut("ééééé", 3), "éé…"}, {cut("日本語のテキスト", 7), "日本語…"}, {cutLeft("/home/日本語", 6), "…本語"},
		{fmt.Sprint(textWidth("日本a")), "5"}, {fmt.Sprint(textWidth("e\u0301")), "1"},
		{oneLine("a\nb\tc  d"), "a b\tc  d"}, {oneLine(" a \r\n\t b\n\n\u2028c "), "a b c"},
		// visible: the one rule for control and format characters in a cell.
		{visible("     1\tdef add(a, b):"), "     1→def add(a, b):"},
		{visible("red \x1b[31mtext\x1b[0m\u0085!\x7f"), `red \x1b[31mtext\x1b[0m\u0085!\x7f`},
		{visible("abc\u202edcba \u2066x\u2069 \u2067\u2068"), `abc\u202edcba \u2066x\u2069 \u2067\u2068`},
		{visible("sk\u200b-ant\u200c\u200d\u2060\ufeff\u00ad"), `sk\u200b-ant\u200c\u200d\u2060\ufeff\u00ad`},
		{visible("bad \xff\xfe utf-8, a real \ufffd, 日本語 é"), `bad \xff\xfe utf-8, a real ` + "\ufffd, 日本語 é"},
		{visible("plain text"), "plain text"},
		// inert: csv and tsv cells a spreadsheet would run.
		{inert("=HYPERLINK(\"http://x\")"), "'=HYPERLINK(\"http://x\")"}, {inert("+1"), "'+1"}, {inert("-2+3"), "'-2+3"},
		{inert("@SUM(A1)"), "'@SUM(A1)"}, {inert("\t=1"), "'\t=1"}, {inert("\r=1"), "'\r=1"}, {inert("a=1"), "a=1"}, {inert(""), ""},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// table runs a command whose Run writes recs, with the given System and
// args, and returns its stdout.
// testIDs is the ids rule the commands give RecordFormats.
var testIDs = records.IDField

func table(t *testing.T, sys *System, layout *Layout, recs []string, args ...string) (int, string, string) {
	t.Helper()
	c := &Command{Name: "cc-test", Synopsis: "cc-test", Help: "usage: cc-test", Sys: sys,
		SetFlags: func(f *Flags) { f.RecordFormats(testIDs) },
		Run: func(env *Env, _ []string) error {
			if layout != nil {
				env.Out.SetLayout(*layout)
			}
			for _, r := range recs {
				if err := env.Out.WriteJSON([]byte(r)); err != nil {
					return err
				}
			}
			return nil
		}}
	var out, errb strings.Builder
	code := c.Main(args, nil, &out, &errb)
	return code, out.String(), errb.String()
}

func term(width int, env ...string) *System {
	vars := map[string]string{}
	for i := 0; i+1 < len(env); i += 2 {
		vars[env[i]] = env[i+1]
	}
	return &System{Getenv: func(k string) string { return vars[k] }, Terminal: func(io.Writer) (int, bool) { return width, width > 0 }}
}

var sumRecs = []string{
	`{"date":"2026-11-29","model":"claude-opus-5-5","messages":3,"input_tokens":1234567,"cost_usd":4.277445524999998}`,
	`{"date":"2026-11-30","model":"claude-haiku-5-5","messages":1,"input_tokens":5,"cost_usd":0.0011}`,
}

var sumLayout = Layout{Total: true, Columns: []Column{
	{Head: "Date", Keys: []string{"date"}}, {Head: "Model", Keys: []string{"model"}},
	{Head: "Messages", Keys: []string{"messages"}, Kind: Count, Total: true},
	{Head: "Input", Keys: []string{"input_tokens"}, Kind: Count, Total: true},
	{Head: "Cache", Keys: []string{"cache_read_input_tokens"}, Kind: Count, Total: true}, // no record has it: left out
	{Head: "Cost", Keys: []string{"cost_usd"}, Kind: Dollars, Total: true},
}}

func TestTableFormats(t *testing.T) {
	// A sub-cent cost keeps two significant digits (numfmt.Dollars), not $0.00.
	wantTable := "Date        Model             Messages      Input     Cost\n" +
		"2026-11-29  claude-opus-5-5          3  1,234,567    $4.28\n" +
		"2026-11-30  claude-haiku-5-5         1          5  $0.0011\n" +
		"──────────────────────────────────────────────────────────\n" +
		"Total                                4  1,234,572    $4.28\n"
	ndjson := strings.Join(sumRecs, "\n") + "\n"
	for _, tt := range []struct {
		name string
		sys  *System
		args []string
		want string
	}{
		{"terminal: a table", term(100, "NO_COLOR", "1"), nil, wantTable},
		{"terminal with colour: bold header and total", term(100), nil,
			"\x1b[1m" + strings.Split(wantTable, "\n")[0] + "\x1b[0m\n" + strings.Join(strings.Split(wantTable, "\n")[1:4], "\n") + "\n\x1b[1m" + strings.Split(wantTable, "\n")[4] + "\x1b[0m\n"},
		{"TERM=dumb: no colour", term(100, "TERM", "dumb"), nil, wantTable},
		{"pipe: NDJSON untouched", term(0), nil, ndjson},
		{"pipe asked for a table: no colour", term(0), []string{"--format", "table"}, wantTable},
		{"terminal asked for ndjson", term(100), []string{"--format", "ndjson"}, ndjson},
		{"terminal with --jq: jq's output", term(100), []string{"--jq", ".date", "-r"}, "2026-11-29\n2026-11-30\n"},
		{"--jq into a table", term(0), []string{"--jq", "{date}", "--format", "table"}, "Date\n2026-11-29\n2026-11-30\n"},
		{"csv: every field exact", term(100), []string{"--format", "csv"},
			"date,model,messages,input_tokens,cost_usd\n2026-11-29,claude-opus-5-5,3,1234567,4.277445524999998\n2026-11-30,claude-haiku-5-5,1,5,0.0011\n"},
		{"tsv", term(0), []string{"--format", "tsv"},
			"date\tmodel\tmessages\tinput_tokens\tcost_usd\n2026-11-29\tclaude-opus-5-5\t3\t1234567\t4.277445524999998\n2026-11-30\tclaude-haiku-5-5\t1\t5\t0.0011\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := table(t, tt.sys, &sumLayout, sumRecs, tt.args...)
			if code != 0 || out != tt.want {
				t.Errorf("exit %d %s\n%s\nwant\n%s", code, errs, out, tt.want)
			}
		})
	}
}

func TestTableTotalOfNothing(t *testing.T) {
	recs := []string{`{"date":"d1","messages":1,"cost_usd":null}`, `{"date":"d2","messages":2,"cost_usd":null}`}
	_, out, _ := table(t, term(0), &sumLayout, recs, "--format", "table")
	want := "Date   Messages  Cost\nd1            1\nd2            2\n" + strings.Repeat("─", 21) + "\nTotal         3\n"
	if out != want {
		t.Errorf("unpriced groups\n%s\nwant\n%s", out, want)
	}
}

func TestTableGenericAndWidth(t *testing.T) {
	recs := []string{
		`{"id":"a","n":1,"text":"a long line of text\nwith a break that will not fit","nested":{"x":1},"ok":true}`,
		`{"id":"b","n":22,"text":"short","nested":[1,2],"ok":null,"extra":"late key"}`,
	}
	_, out, _ := table(t, term(44, "NO_COLOR", "1"), nil, recs)
	want := "id   n  text                  ok    extra\n" +
		"a    1  a long line of text…  true\n" +
		"b   22  short                       late key\n"
	if out != want {
		t.Errorf("generic table\n%s\nwant\n%s", out, want)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if n := len([]rune(l)); n > 44 {
			t.Errorf("line of %d characters on a 44-column terminal: %q", n, l)
		}
	}
	// A record's text cannot drive the terminal.
	_, out, _ = table(t, term(80, "NO_COLOR", "1"), nil, []string{`{"k\u001b]0;x\u0007":"\u001b[2J wiped"}`})
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("escape sequence passed to the terminal: %q", out)
	}
	// CSV quoting: commas, quotes and line breaks as RFC 4180 says.
	_, out, _ = table(t, term(0), nil, []string{`{"a":"x,y","b":"say \"hi\"","c":"two\nlines","d":[1,"z"]}`}, "--format", "csv")
	if want := "a,b,c,d\n\"x,y\",\"say \"\"hi\"\"\",\"two\nlines\",\"[1,\"\"z\"\"]\"\n"; out != want {
		t.Errorf("csv\n%q\nwant\n%q", out, want)
	}
}

func TestFormatErrors(t *testing.T) {
	code, _, errs := table(t, term(0), nil, nil, "--format", "yaml")
	if code != 2 || !strings.HasPrefix(errs, `cc-test: --format "yaml": want one of ndjson, table, csv, tsv`) {
		t.Errorf("bad --format: %d %q", code, errs)
	}
	// A command whose output never ends gives up the default table, and
	// refuses one asked for.
	endless := func(sys *System, args ...string) (int, string, string) {
		c := &Command{Name: "cc-test", Synopsis: "cc-test", Help: "usage", Sys: sys,
			SetFlags: func(f *Flags) { f.RecordFormats(testIDs) },
			Run: func(env *Env, _ []string) error {
				if err := env.Out.Endless("--follow"); err != nil {
					return err
				}
				return env.Out.WriteJSON([]byte(`{"a":1}`))
			}}
		var out, errb strings.Builder
		code := c.Main(args, nil, &out, &errb)
		return code, out.String(), errb.String()
	}
	if code, out, _ := endless(term(80)); code != 0 || out != "{\"a\":1}\n" {
		t.Errorf("endless on a terminal: %d %q, want NDJSON", code, out)
	}
	if code, _, errs := endless(term(80), "--format", "table"); code != 2 || !strings.Contains(errs, "--follow never ends") {
		t.Errorf("endless with --format table: %d %q", code, errs)
	}
	// A command without RecordFormats has no --format.
	c, _ := testCommand(func(env *Env, _ []string) error { return nil })
	if code, _, _ := call(c, nil, "--format", "table"); code != 2 {
		t.Errorf("--format on a command without records: exit %d", code)
	}
}

func TestActiveLayout(t *testing.T) {
	recs := []string{
		`{"address":"default/app-3c","profile":"default","pid":4242,"session_id":"11111111-2222-4333-8444-555555555555","status":"busy","cwd":"/home/dev/app","started_at":"2026-11-30T09:00:00.000Z","updated_at":"2026-11-30T10:47:16.987Z","raw":{"x":1}}`,
		`{"address":"work/beta","profile":"work","pid":77,"session_id":"22222222-2222-4333-8444-555555555555","status":null,"cwd":"/home/dev/beta","started_at":"2026-11-30T08:00:00.000Z","updated_at":null}`,
	}
	// cc-sessions --active's layout (lib/commands/internal/load).
	active := Layout{Columns: []Column{
		{Head: "Address", Keys: []string{"address"}},
		{Head: "PID", Keys: []string{"pid"}},
		{Head: "Status", Keys: []string{"status"}},
		{Head: "Updated", Keys: []string{"updated_at", "started_at"}, Kind: Time},
		{Head: "Session", Keys: []string{"session_id"}, Kind: IDPrefix},
		{Head: "Project", Keys: []string{"cwd"}, Kind: Path},
	}}
	_, out, _ := table(t, term(100, "NO_COLOR", "1"), &active, recs)
	want := "Address         PID   Status  Updated           Session   Project\n" +
		"default/app-3c  4242  busy    2026-11-30 10:47  11111111  /home/dev/app\n" +
		"work/beta       77            2026-11-30 08:00  22222222  /home/dev/beta\n"
	if out != want {
		t.Errorf("--active table\n%s\nwant\n%s", out, want)
	}
}

func TestCompleteFormat(t *testing.T) {
	c := &Command{Sys: &System{}, Name: "cc-test", SetFlags: func(f *Flags) { f.RecordFormats(testIDs) }}
	var out strings.Builder
	c.Main([]string{completeArg, "--format", ""}, nil, &out, io.Discard)
	if got := strings.Fields(out.String()); strings.Join(got, " ") != "ndjson table csv tsv" {
		t.Errorf("--format completes to %q", got)
	}
}

// TestCSVInert: a text a spreadsheet would run as a formula is written
// with a ' before it, in csv and tsv, header included; a negative number
// is a number, written as it is.
func TestCSVInert(t *testing.T) {
	recs := []string{`{"prompt":"=HYPERLINK(\"http://evil\",\"x\")","delta":-3,"who":"@admin","=k":"+1","note":"\tx"}`}
	for format, want := range map[string]string{
		"csv": "prompt,delta,who,'=k,note\n\"'=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\",-3,'@admin,'+1,'\tx\n",
		"tsv": "prompt\tdelta\twho\t'=k\tnote\n\"'=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\"\t-3\t'@admin\t'+1\t\"'\tx\"\n",
	} {
		code, out, errs := table(t, term(0), nil, recs, "--format", format)
		if code != 0 || out != want {
			t.Errorf("--format %s: exit %d, %s\ngot  %q\nwant %q", format, code, errs, out, want)
		}
	}
}

// TestTableCellsVisible: through the table writer, a cell's escape
// sequences, bidi overrides and zero-width characters show as escapes and
// a tab as →, on a terminal and into a file alike; NDJSON keeps them.
func TestTableCellsVisible(t *testing.T) {
	rec := `{"text":"1\tdef add(a, b): \u001b[2J\u202eevil\u2066 sk\u200b-ant"}`
	want := "text\n" + `1→def add(a, b): \x1b[2J\u202eevil\u2066 sk\u200b-ant` + "\n"
	for _, args := range [][]string{nil, {"--format", "table"}} {
		sys := term(80, "NO_COLOR", "1")
		if args != nil {
			sys = term(0)
		}
		code, out, _ := table(t, sys, nil, []string{rec}, args...)
		if code != 0 || out != want {
			t.Errorf("%v: exit %d\ngot  %q\nwant %q", args, code, out, want)
		}
	}
	if _, out, _ := table(t, term(0), nil, []string{rec}); out != rec+"\n" {
		t.Errorf("NDJSON changed: %q", out)
	}
}

// TestEmptyNote: a run with no record says so in one line on stderr when
// stdout is a terminal, whatever the format; into a pipe nothing is added.
func TestEmptyNote(t *testing.T) {
	for _, tt := range []struct {
		name   string
		sys    *System
		layout *Layout
		args   []string
		want   string
	}{
		{"terminal", term(80), nil, nil, "cc-test: no records\n"},
		{"terminal, the layout's words", term(80), &Layout{Empty: "no sessions"}, nil, "cc-test: no sessions\n"},
		{"terminal with --jq", term(80), nil, []string{"--jq", "."}, "cc-test: no records\n"},
		{"terminal, --format csv", term(80), nil, []string{"--format", "csv"}, "cc-test: no records\n"},
		{"pipe", term(0), &Layout{Empty: "no sessions"}, nil, ""},
		{"pipe asked for a table", term(0), nil, []string{"--format", "table"}, ""},
	} {
		code, out, errs := table(t, tt.sys, tt.layout, nil, tt.args...)
		if code != 0 || out != "" || errs != tt.want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q, want %q", tt.name, code, out, errs, tt.want)
		}
	}
	if _, _, errs := table(t, term(80), nil, sumRecs[:1]); errs != "" {
		t.Errorf("a record was printed, yet: %q", errs)
	}
}
