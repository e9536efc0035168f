package transcript

// Edges is the one rule of where one transcript ends and the next begins
// among entries read one after another without their files (cc-entries
// lines on stdin, with or without cc_source), for every reader of them
// (cc-extract, cc-otel, cc-hook backtest; lib/extract's fork prefix keeps
// a check of its own, forkPrefix.see says why):
//
//   - a line with a cc_source path belongs to the transcript at that
//     path: a new path starts a new transcript;
//   - a line without one, in a stream with none (cc-entries' default, or
//     --with-source reading "-", whose path is null), belongs to its
//     session's transcript, or its subagent's (a subagent's records carry
//     the session's id and their agentId): a new session or agent starts
//     a new transcript, so a fork read before the session it copied does
//     not leave its copies' call ids waiting for the original's records;
//   - a line that names neither (Claude Code writes file-history-snapshot
//     and summary records without a sessionId) goes on with the
//     transcript before, and so does a line without a path among lines
//     with one: only a path says where such a stream's lines come from.
//
// The zero value is ready; the first line starts the first transcript
// without an edge.
type Edges struct {
	key     string // the transcript being read: its path, or its session (and agent)
	sourced bool   // a line with a path came: lines without one say nothing
}

// Next reports whether a line starts a new transcript, the one before
// ending: path is its cc_source's path ("" when it has none, or null);
// session and agent are its cc_source's session_id and agent_id, else the
// record's own sessionId and agentId ("" for none).
func (d *Edges) Next(path, session, agent string) bool {
	key := path
	switch {
	case path != "":
		d.sourced = true
	case d.sourced || session == "":
		return false
	case agent != "":
		key = session + "\x00" + agent
	default:
		key = session
	}
	edge := d.key != "" && key != d.key
	d.key = key
	return edge
}

// Sourced reports whether a line with a path came: from then on a line
// without one is never an edge, and its session need not be looked up.
func (d *Edges) Sourced() bool { return d.sourced }

// Key names the transcript being read: its path, or its session (with
// its agent when it has one); "" before the first. A reader that keeps
// its place between runs keeps it (SetKey).
func (d *Edges) Key() string { return d.key }

// SetKey starts where Key left off, in a stream that names no paths.
func (d *Edges) SetKey(k string) { d.key, d.sourced = k, false }
