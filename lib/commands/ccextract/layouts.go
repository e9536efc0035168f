package ccextract

import (
	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// Columns the kinds' tables share.
var (
	timeCol    = cli.Column{Head: "Time", Keys: []string{"timestamp"}, Kind: cli.Time}
	sessionCol = cli.Column{Head: "Session", Keys: []string{"session_id"}, Kind: cli.IDPrefix}
)

// kindLayouts is how each kind's facts show as a table (--sum records have
// sumLayout): the fields a person scans, the long text last so that it is
// what the terminal's width cuts. csv and ndjson keep every field.
var kindLayouts = map[string]cli.Layout{
	"prompts": {Columns: []cli.Column{
		timeCol, sessionCol,
		{Head: "Origin", Keys: []string{"origin"}},
		{Head: "Text", Keys: []string{"text"}},
	}},
	"texts": {Columns: []cli.Column{
		timeCol, sessionCol,
		{Head: "Model", Keys: []string{"model"}},
		{Head: "Text", Keys: []string{"text"}},
	}},
	"tools": {Columns: []cli.Column{
		timeCol, sessionCol,
		{Head: "Tool", Keys: []string{"name"}},
		{Head: "Error", Keys: []string{"is_error"}},
		{Head: "Input", Keys: []string{"input"}, Show: transcript.InputSummary},
	}},
	"shell": {Columns: []cli.Column{
		timeCol, sessionCol,
		{Head: "Exit", Keys: []string{"exit_code"}, Kind: cli.Count},
		{Head: "Command", Keys: []string{"command"}},
		{Head: "Output", Keys: []string{"output"}, Kind: cli.FirstLine},
	}},
	"files": {Columns: []cli.Column{
		timeCol, sessionCol,
		{Head: "Operation", Keys: []string{"operation"}},
		{Head: "Tool", Keys: []string{"tool"}},
		{Head: "Path", Keys: []string{"path"}, Kind: cli.Path},
	}},
	"subagents": {Columns: []cli.Column{
		timeCol, sessionCol,
		{Head: "Agent", Keys: []string{"agent_type"}},
		{Head: "Status", Keys: []string{"status"}},
		{Head: "Tokens", Keys: []string{"total_tokens"}, Kind: cli.Count},
		{Head: "Description", Keys: []string{"description", "prompt"}},
	}},
	"failures": {Columns: []cli.Column{
		timeCol, sessionCol,
		{Head: "Kind", Keys: []string{"kind"}},
		{Head: "Tool", Keys: []string{"tool", "hook"}},
		{Head: "Message", Keys: []string{"message"}, Kind: cli.FirstLine},
	}},
	"usage": {Columns: []cli.Column{
		timeCol,
		{Head: "Model", Keys: []string{"model"}},
		{Head: "Input", Keys: []string{"input_tokens"}, Kind: cli.Count},
		{Head: "Output", Keys: []string{"output_tokens"}, Kind: cli.Count},
		{Head: "Cache Write", Keys: []string{"cache_creation_input_tokens"}, Kind: cli.Count},
		{Head: "Cache Read", Keys: []string{"cache_read_input_tokens"}, Kind: cli.Count},
		{Head: "Cost", Keys: []string{"cost_usd"}, Kind: cli.Dollars, Keep: true},
	}},
	"compactions": {Columns: []cli.Column{
		timeCol, sessionCol,
		{Head: "Trigger", Keys: []string{"trigger"}},
		{Head: "Before", Keys: []string{"pre_tokens"}, Kind: cli.Count},
		{Head: "After", Keys: []string{"post_tokens"}, Kind: cli.Count},
		{Head: "Summary", Keys: []string{"summary"}},
	}},
	"conversation": {Columns: []cli.Column{
		timeCol, sessionCol,
		{Head: "Role", Keys: []string{"role"}},
		{Head: "Text", Keys: []string{"text"}},
	}},
}
