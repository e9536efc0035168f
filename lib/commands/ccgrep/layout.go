package ccgrep

import "github.com/ccpipe/ccpipe/lib/cli"

// matchLayout is how --matches hits show as a table: the session, where
// the hit lies (and in which tool's call or attachment) and its snippet,
// cut around the hit and the hit marked on a terminal.
var matchLayout = cli.Layout{Columns: []cli.Column{
	{Head: "Session", Keys: []string{"session_id"}, Kind: cli.IDPrefix},
	{Head: "Where", Keys: []string{"where"}},
	{Head: "Tool", Keys: []string{"tool", "attachment"}},
	{Head: "Snippet", Keys: []string{"snippet"}, Hit: [2]string{"match_start", "match_end"}},
}, Empty: "no match"}
