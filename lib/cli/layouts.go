package cli

// The table layouts of the records more than one command prints (the
// usage sums are cc-extract's own).

// SessionLayout shows session records (cc-sessions, cc-grep): last
// activity, id prefix, title or first prompt, launch dir, size.
var SessionLayout = Layout{Columns: []Column{
	{Head: "Last Activity", Keys: []string{"last_activity_at", "updated_at"}, Kind: Time},
	{Head: "Session", Keys: []string{"session_id"}, Kind: IDPrefix},
	{Head: "Title", Keys: []string{"title", "first_prompt", "name"}},
	{Head: "Project", Keys: []string{"cwd", "project_dir"}, Kind: Path},
	{Head: "Size", Keys: []string{"size_bytes"}, Kind: Bytes},
}, Empty: "no sessions"}

// ActiveLayout shows running sessions (cc-sessions --active).
var ActiveLayout = Layout{Columns: []Column{
	{Head: "Address", Keys: []string{"address"}},
	{Head: "PID", Keys: []string{"pid"}}, // an id: no thousands separator
	{Head: "Status", Keys: []string{"status"}},
	{Head: "Updated", Keys: []string{"updated_at", "started_at"}, Kind: Time},
	{Head: "Session", Keys: []string{"session_id"}, Kind: IDPrefix},
	{Head: "Project", Keys: []string{"cwd"}, Kind: Path},
}, Empty: "no running sessions"}
