package cchook

import "github.com/ccpipe/ccpipe/lib/cli"

// The tables of the subcommands whose records a person reads: a
// terminal's default view (--format chooses; into a pipe, NDJSON).

// lintLayout shows a lint problem: where, the field read, the nearest
// real one, and the whole message.
var lintLayout = cli.Layout{Columns: []cli.Column{
	{Head: "File", Keys: []string{"file"}, Kind: cli.Path},
	{Head: "Line", Keys: []string{"line"}},
	{Head: "Rule", Keys: []string{"rule"}},
	{Head: "Field", Keys: []string{"field"}},
	{Head: "Did You Mean", Keys: []string{"did_you_mean"}},
	{Head: "Problem", Keys: []string{"message"}},
}, Empty: "no problems"}

// backtestLayout shows a payload a past session sent and what the rules
// answered.
var backtestLayout = cli.Layout{Columns: []cli.Column{
	{Head: "Time", Keys: []string{"timestamp"}, Kind: cli.Time},
	{Head: "Session", Keys: []string{"session_id"}, Kind: cli.IDPrefix},
	{Head: "Event", Keys: []string{"event"}},
	{Head: "Tool", Keys: []string{"tool_name"}},
	{Head: "Rule", Keys: []string{"rule"}},
	{Head: "Decision", Keys: []string{"decision"}},
	{Head: "Reason", Keys: []string{"reason"}},
}, Empty: "no payload a rule answered"}

// testLayout shows a case: whether it passed, what was expected and got.
var testLayout = cli.Layout{Columns: []cli.Column{
	{Head: "Pass", Keys: []string{"pass"}},
	{Head: "Line", Keys: []string{"line"}},
	{Head: "Case", Keys: []string{"case"}},
	{Head: "Event", Keys: []string{"event"}},
	{Head: "Expected", Keys: []string{"expected"}},
	{Head: "Got", Keys: []string{"got"}},
	{Head: "Reason", Keys: []string{"reason"}},
}, Empty: "no cases"}
