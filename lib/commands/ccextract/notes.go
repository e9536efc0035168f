package ccextract

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/internal/load"
	"github.com/ccpipe/ccpipe/lib/sessions"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// missing gathers, from the --sum records written, what their totals are
// known to miss, for the footer a terminal gets on stderr (cli's Note):
// messages left unpriced or priced as an assumed model, and sessions
// whose cost Claude Code recorded otherwise.
type missing struct {
	unpriced int64
	assumed  []string
	differ   int
	reasons  []string
	noReason int
	// sessions counts the sessions Claude Code ran with no readable
	// transcript (cc-sessions --missing), when every session was read.
	sessions int
}

// missingSessions counts, for a terminal's footer, the sessions Claude
// Code ran in the window that left no readable transcript (swept ones
// aside: the cleanup's, long gone): totals of every session leave them
// out.
func (m *missing) missingSessions(env *cli.Env, sys cli.System, w *cli.Window) {
	if _, term := env.Terminal(); !term {
		return
	}
	list, _ := sessions.MissingSessions(env.Ctx, load.Profiles(sys), sys.Clock())
	for _, s := range list {
		if s.Cause != sessions.CauseSwept && (!w.Set() || w.Contains(s.LastSeenAt)) {
			m.sessions++
		}
	}
}

// see looks at one record on its way out.
func (m *missing) see(v any) {
	s, ok := v.(*usage.Sum)
	if !ok {
		return
	}
	if s.UnpricedMessages != nil {
		m.unpriced += *s.UnpricedMessages
	}
	if s.AssumedModels != nil {
		for _, a := range *s.AssumedModels {
			if !slices.Contains(m.assumed, a) {
				m.assumed = append(m.assumed, a)
			}
		}
	}
	if d := string(s.CostDifferenceUSD); d != "" && d != "0" && d != "null" {
		m.differ++
		if s.DifferenceReasons == nil || len(*s.DifferenceReasons) == 0 {
			m.noReason++
		} else {
			for _, r := range *s.DifferenceReasons {
				if !slices.Contains(m.reasons, r) {
					m.reasons = append(m.reasons, r)
				}
			}
		}
	}
}

// note adds the footer lines to out.
func (m *missing) note(out *cli.Output) {
	if m.sessions > 0 {
		out.Note(fmt.Sprintf("sessions Claude Code ran that left no readable transcript, not in these totals: %d (cc-sessions --missing lists them)", m.sessions))
	}
	if m.unpriced > 0 {
		out.Note(fmt.Sprintf("%d messages could not be priced and are not in the cost (unpriced_messages)", m.unpriced))
	}
	if len(m.assumed) > 0 {
		out.Note(fmt.Sprintf("no known price for %s: priced as the default model, as Claude Code does (--prices FILE sets one)", strings.Join(m.assumed, ", ")))
	}
	if m.differ > 0 {
		why := strings.Join(m.reasons, ", ")
		if m.noReason > 0 {
			why = strings.TrimPrefix(why+fmt.Sprintf(", %d with no reason the transcripts show", m.noReason), ", ")
		}
		out.Note(fmt.Sprintf("sessions whose cost differs from the one Claude Code recorded: %d (%s); see the Difference column", m.differ, why))
	}
}
