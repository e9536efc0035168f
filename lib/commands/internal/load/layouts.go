package load

import "github.com/ccpipe/ccpipe/lib/cli"

// The table layouts of the records more than one command prints (the
// usage sums are cc-extract's own): record shapes are the commands'
// knowledge, not lib/cli's.

// SessionLayout shows session records (cc-sessions, cc-grep): last
// activity, id prefix, title or first prompt, launch dir, size.
var SessionLayout = cli.Layout{Columns: []cli.Column{
	{Head: "Last Activity", Keys: []string{"last_activity_at", "updated_at"}, Kind: cli.Time},
	{Head: "Session", Keys: []string{"session_id"}, Kind: cli.IDPrefix},
	{Head: "Title", Keys: []string{"title", "first_prompt", "name"}},
	{Head: "Project", Keys: []string{"cwd", "project_dir"}, Kind: cli.Path},
	{Head: "Size", Keys: []string{"size_bytes"}, Kind: cli.Bytes},
}, Empty: "no sessions"}

// ActiveLayout shows running sessions (cc-sessions --active).
var ActiveLayout = cli.Layout{Columns: []cli.Column{
	{Head: "Address", Keys: []string{"address"}},
	{Head: "PID", Keys: []string{"pid"}}, // an id: no thousands separator
	{Head: "Status", Keys: []string{"status"}},
	{Head: "Updated", Keys: []string{"updated_at", "started_at"}, Kind: cli.Time},
	{Head: "Session", Keys: []string{"session_id"}, Kind: cli.IDPrefix},
	{Head: "Project", Keys: []string{"cwd"}, Kind: cli.Path},
}, Empty: "no running sessions"}
