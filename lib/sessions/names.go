package sessions

import (
	"context"

	"github.com/ccpipe/ccpipe/lib/profiles"
)

// RunningNames lists what names a running session for Find and cc-send:
// each one's <profile>/<name> address and its session id, read from the
// registries of profs (for shell completion: cheap, no transcript read).
func RunningNames(ctx context.Context, profs []profiles.Profile, getenv func(string) string) []string {
	list, _ := ActiveSessions(ctx, profs, ActiveOptions{Getenv: getenv})
	var out []string
	for _, a := range list {
		if a.Address != "" {
			out = append(out, a.Address)
		}
		if a.SessionID != "" {
			out = append(out, a.SessionID)
		}
	}
	return out
}
