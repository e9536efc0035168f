package sessions

import (
	"context"

	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/registry"
)

// CurrentOptions tunes Current.
type CurrentOptions struct {
	FindOptions
	// Getenv reads the caller's environment (nil: an empty one).
	Getenv func(string) string
	// Pid is where the walk up the process tree starts (the caller's
	// parent, cli.System's Pid); 0: no walk.
	Pid int
}

// Current finds the session a tool was started from (a Bash tool call, a
// hook, a subagent): the registered pid in CLAUDE_PID, else the session id
// in CLAUDE_CODE_SESSION_ID, else the first registered pid found walking
// up the parent processes. *NotFoundError when none.
func Current(ctx context.Context, profs []profiles.Profile, opt CurrentOptions) (Session, error) {
	getenv := opt.Getenv
	if getenv == nil {
		getenv = noEnv
	}
	host := opt.Host
	if host == nil {
		host = registry.LocalHost()
	}
	fo := opt.FindOptions
	fo.Host = host
	if fo.Active == nil {
		fo.Active, _ = ActiveSessions(ctx, profs, ActiveOptions{Host: host, Getenv: fo.Getenv})
		if fo.Active == nil {
			fo.Active = []Active{}
		}
	}
	byPid := map[int][]Active{}
	for _, a := range fo.Active {
		if a.Liveness == string(registry.Alive) {
			byPid[a.Pid] = append(byPid[a.Pid], a)
		}
	}
	if p := getenv("CLAUDE_PID"); p != "" {
		if s, err := Find(ctx, "pid:"+p, profs, fo); err == nil {
			return s, nil
		}
	}
	if id := getenv("CLAUDE_CODE_SESSION_ID"); layout.IsUUID(id) {
		if s, err := Find(ctx, id, profs, fo); err == nil {
			return s, nil
		}
	}
	pid := opt.Pid
	for steps := 0; pid > 1 && steps < 256; steps++ {
		if hits := byPid[pid]; len(hits) > 0 {
			return pick(ctx, "pid:"+itoa(pid), hits, profs, fo)
		}
		parent, err := host.ParentPid(pid)
		if err != nil || parent == pid {
			break
		}
		pid = parent
	}
	return Session{}, &NotFoundError{Query: "current session"}
}
