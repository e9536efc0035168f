package records

import "strings"

// IDField says whether a record's field holds one of Claude Code's ids: a
// session's, an entry's or a subagent's (session_id, uuid, agent_id, and
// any *_uuid). A table of records without a layout of their own shows
// such a field as the id's first characters (lib/cli's RecordFormats
// takes this rule from the command).
func IDField(key string) bool {
	return key == "session_id" || key == "uuid" || key == "agent_id" || strings.HasSuffix(key, "_uuid")
}
