package ccentries

import (
	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// entryLayout is how transcript entries show as a table: when, what type,
// the session, and what the entry says on one line (a message's text
// blocks, its tool calls as "tool NAME", a tool result's first line; an
// entry without a message by its content, prompt, title or type).
var entryLayout = cli.Layout{Columns: []cli.Column{
	{Head: "Time", Keys: []string{"timestamp"}, Kind: cli.Time},
	{Head: "Type", Keys: []string{"type"}},
	{Head: "Session", Keys: []string{"sessionId", "session_id"}, Kind: cli.IDPrefix},
	{Head: "Text", Keys: []string{"message", "content", "lastPrompt", "customTitle", "summary", "attachment"}, Show: transcript.ContentSummary},
}, Empty: "no entries"}

// archiveLayout is how --archive's records show: what happened, the sizes,
// then the source and the copy, each cut on the left when the terminal is
// narrow, so the end that tells the rows apart (the session id, the
// subagent's or tool result's file name) stays in sight.
var archiveLayout = cli.Layout{Columns: []cli.Column{
	{Head: "Status", Keys: []string{"status"}},
	{Head: "Bytes", Keys: []string{"bytes"}, Kind: cli.Count},
	{Head: "Archived", Keys: []string{"archive_bytes"}, Kind: cli.Count},
	{Head: "Source", Keys: []string{"path"}, Kind: cli.Path},
	{Head: "Copy", Keys: []string{"archive_path"}, Kind: cli.Path},
}, Empty: "nothing to archive"}
