// Package link connects a hook payload to the rest of ccpipe: the
// session's transcript (through lib/transcript) and the running session
// (through lib/sessions and the registry). It lives apart from lib/hooks
// so that a hook that never follows a link does not link, or initialise,
// the transcript and registry code: the cost is paid only by hooks that
// call it.
package link

import (
	"context"
	"errors"
	"fmt"

	"github.com/ccpipe/ccpipe/lib/hooks"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/sessions"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// ErrNoTranscript is returned for a payload without a transcript path
// (calls served to a remote caller have an empty one).
var ErrNoTranscript = errors.New("payload has no transcript_path")

// Transcript streams the payload's transcript line by line (see
// transcript.ReadFile). The transcript can lag the conversation: on Stop
// and SubagentStop, last_assistant_message is the reliable last word.
func Transcript(ev hooks.Event, opts transcript.Options, fn func(*transcript.Line) error) (transcript.Diagnostics, error) {
	path := ev.Common().TranscriptPath
	if path == "" {
		return transcript.Diagnostics{}, ErrNoTranscript
	}
	return transcript.ReadFile(path, opts, fn)
}

// AgentTranscript streams the subagent's own transcript of a SubagentStop
// payload. For the compaction fork the file is never written: the error is
// then the open error.
func AgentTranscript(ev *hooks.SubagentStopEvent, opts transcript.Options, fn func(*transcript.Line) error) (transcript.Diagnostics, error) {
	if ev.AgentTranscriptPath == "" {
		return transcript.Diagnostics{}, ErrNoTranscript
	}
	return transcript.ReadFile(ev.AgentTranscriptPath, opts, fn)
}

// ActiveSession finds the running session the payload came from in the
// registries of profs (profiles.Discover gives this machine's), for
// example to message it later. The package reads no environment itself. A *sessions.NotFoundError when it is not
// registered (a headless run that already ended, a session of another
// machine); registry problems met on the way are returned with it.
func ActiveSession(ctx context.Context, ev hooks.Event, profs []profiles.Profile) (sessions.Active, error) {
	id := ev.Common().SessionID
	if id == "" {
		return sessions.Active{}, errors.New("payload has no session_id")
	}
	list, errs := sessions.ActiveSessions(ctx, profs, sessions.ActiveOptions{})
	for _, a := range list {
		if a.SessionID == id {
			return a, nil
		}
	}
	nf := &sessions.NotFoundError{Query: id}
	if len(errs) > 0 {
		return sessions.Active{}, fmt.Errorf("%w (%w)", nf, errors.Join(errs...))
	}
	return sessions.Active{}, nf
}
