package ccentries

import (
	"context"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ccpipe/ccpipe/lib/registry"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// followAll follows every source side by side until each one's session
// ends, or a signal. With --subagents, subagent files are picked up as
// they appear.
func (r *runner) followAll(srcs []source) error {
	// The first failure stops the others; Wait returns it.
	g, ctx := errgroup.WithContext(r.env.Ctx)
	start := func(ts transcript.Source, s source, agentID, toolUseID string) {
		g.Go(func() error { return r.stream(ctx, ts, s, agentID, toolUseID) })
	}
	for _, s := range srcs {
		if s.stdin {
			start(transcript.Source{Reader: r.env.Stdin}, s, "", "")
			continue
		}
		fo := &transcript.Follow{Poll: r.o.poll, Stop: r.o.stopFor(s.sessionID, s.path)}
		start(transcript.Source{Path: s.path, Follow: fo}, s, "", "")
		if r.o.subagents {
			g.Go(func() error {
				r.watchSubagents(ctx, s, fo, start)
				return nil
			})
		}
	}
	return g.Wait()
}

// watchSubagents starts a follower for each subagent file of s, including
// those written later, until s's session ends.
func (r *runner) watchSubagents(ctx context.Context, s source, fo *transcript.Follow,
	start func(transcript.Source, source, string, string)) {
	seen := map[string]bool{}
	for {
		// Decide before listing, so that a file written just before the
		// end is still picked up by this last listing.
		done := ctx.Err() != nil || (fo.Stop != nil && fo.Stop())
		subs, err := transcript.Subagents(s.path)
		if err != nil {
			r.mu.Lock()
			r.fail(s.path, err)
			r.mu.Unlock()
			return
		}
		for _, sa := range subs {
			if seen[sa.AgentID] || transcript.CompressionOf(sa.Path) != transcript.Plain {
				continue
			}
			seen[sa.AgentID] = true
			tool := ""
			if sa.Meta != nil {
				tool = sa.Meta.ToolUseID
			}
			start(transcript.Source{Path: sa.Path, Follow: fo}, s, sa.AgentID, tool)
		}
		if done {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * fo.Poll):
		}
	}
}

// registryStop ends a follow when the session ends (registry.SessionEnded).
func registryStop(sessionID, path string) func() bool { return registry.SessionEnded(sessionID, path) }
