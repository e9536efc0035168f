package ccgrep

import (
	"os"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/records"
	"github.com/ccpipe/ccpipe/lib/sessions"
)

// --since/--until keep the sessions active in the window: from their
// first record to their last, as cc-sessions records them.

// fileInWindow tells, before a session is searched, whether it can have
// been active in the window: a transcript last written before --since
// holds nothing later (sessions.Session.WrittenBefore).
func (o *options) fileInWindow(f sessions.Session) bool {
	return !f.WrittenBefore(o.window.Since)
}

// sessionInWindow tells whether a listed session was active in the window.
func (o *options) sessionInWindow(s sessions.Session) bool {
	return o.window.Overlaps(s.StartedAt, s.LastActivityAt)
}

// recordInWindow tells whether the session of an input record was active
// in the window: by its started_at and last_activity_at (a cc-sessions
// record) or updated_at (an --active one), else by the transcript's
// modification time.
func (o *options) recordInWindow(rec records.Record) bool {
	from, to := parse(rec.StartedAt), lastActive(rec)
	if from.IsZero() && to.IsZero() {
		return false // nothing tells when it was active
	}
	return o.window.Overlaps(from, to)
}

// lastActive is when the session of an input record was last active:
// its last_activity_at (a cc-sessions record), else its updated_at (an
// --active one), else the transcript's modification time; zero when
// none is known. --since/--until and --sort recent both go by it.
func lastActive(rec records.Record) time.Time {
	if t := parse(rec.LastActivityAt); !t.IsZero() {
		return t
	}
	if t := parse(rec.UpdatedAt); !t.IsZero() {
		return t
	}
	if fi, err := os.Stat(rec.TranscriptPath); err == nil {
		return fi.ModTime()
	}
	return time.Time{}
}

func parse(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// resolveWindow parses --since/--until in the System's clock and zone.
func (o *options) resolveWindow() error {
	loc, _ := cli.ZoneFlag(o.sys, "")
	return o.window.Resolve(o.sys.Clock(), loc)
}
