package ccextract

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// weekdays are the values of --week-start.
var weekdays = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// calendar resolves what days, weeks, months and the time window depend
// on: --tz, --week-start, --since/--until and --sum; and chooses the
// table layout of the records.
func (o *options) calendar(env *cli.Env) error {
	loc, err := cli.ZoneFlag(o.sys, o.tz)
	if err != nil {
		return err
	}
	o.loc = loc
	if err := o.window.Resolve(o.sys.Clock(), loc); err != nil {
		return err
	}
	var keys []string
	if o.sum != "" {
		if keys, err = usage.ParseSum(o.sum); err != nil {
			msg := err.Error()
			for _, k := range strings.Split(o.sum, ",") {
				if k = strings.TrimSpace(k); !slices.Contains(usage.SumBy, k) {
					msg += cli.DidYouMean(k, usage.SumBy)
					break
				}
			}
			return cli.Usagef("%s", msg)
		}
	}
	if env.Flags.Visited("week-start") {
		if !slices.Contains(keys, "week") {
			return cli.Usagef("--week-start applies to --sum with week")
		}
		d, ok := weekday(o.weekStart)
		if !ok {
			return cli.Usagef("--week-start %q: want a day of the week (%s)", o.weekStart, strings.Join(weekdays, ", "))
		}
		o.weekday = &d
	}
	if len(keys) > 0 {
		env.Out.SetLayout(sumLayout(keys, loc))
	} else {
		l := kindLayouts[o.kind] // a kind without one: a generic table
		l.Zone, l.Empty = loc, "no "+o.kind+" facts"
		env.Out.SetLayout(l)
	}
	return nil
}

// reasons shows difference_reasons as the words joined by commas.
func reasons(v json.RawMessage) string {
	var l []string
	if json.Unmarshal(v, &l) != nil {
		return string(v)
	}
	return strings.Join(l, ", ")
}

// weekday reads a day name, or its first three letters.
func weekday(s string) (time.Weekday, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	for i, d := range weekdays {
		if len(s) >= 3 && strings.HasPrefix(d, s) {
			return time.Weekday((i + 1) % 7), true
		}
	}
	return 0, false
}

// sumLayout is how --sum records show as a table: the group's keys, then
// the counts and the cost, with a Total row.
func sumLayout(keys []string, loc *time.Location) cli.Layout {
	var cols []cli.Column
	if keys[0] == "block" {
		cols = append(cols,
			cli.Column{Head: "Block Start", Keys: []string{"block_start"}, Kind: cli.Time},
			cli.Column{Head: "Last Message", Keys: []string{"actual_end"}, Kind: cli.Time},
			cli.Column{Head: "Active", Keys: []string{"active"}})
	}
	model := false
	for _, k := range keys {
		switch k {
		case "day":
			cols = append(cols, cli.Column{Head: "Date", Keys: []string{"date"}})
		case "week":
			cols = append(cols, cli.Column{Head: "Week", Keys: []string{"week"}})
		case "month":
			cols = append(cols, cli.Column{Head: "Month", Keys: []string{"month"}})
		case "session":
			cols = append(cols, cli.Column{Head: "Session", Keys: []string{"session_id"}, Kind: cli.IDPrefix})
		case "model":
			model = true
			cols = append(cols, cli.Column{Head: "Model", Keys: []string{"model"}})
		case "project":
			cols = append(cols, cli.Column{Head: "Project", Keys: []string{"project"}, Kind: cli.Path})
		}
	}
	if keys[0] == "session" && len(keys) == 1 {
		cols = append(cols, cli.Column{Head: "Project", Keys: []string{"project"}, Kind: cli.Path})
	}
	if !model {
		cols = append(cols, cli.Column{Head: "Models", Keys: []string{"models"}})
	}
	for _, c := range []struct{ head, key string }{
		{"Messages", "messages"}, {"Input", "input_tokens"}, {"Output", "output_tokens"},
		{"Cache Write", "cache_creation_input_tokens"}, {"Cache Read", "cache_read_input_tokens"},
		{"Total Tokens", "total_tokens"},
	} {
		cols = append(cols, cli.Column{Head: c.head, Keys: []string{c.key}, Kind: cli.Count, Total: true})
	}
	cols = append(cols, cli.Column{Head: "Cost", Keys: []string{"cost_usd"}, Kind: cli.Dollars, Total: true, Keep: true})
	if keys[0] == "session" && len(keys) == 1 {
		// Claude Code's own figure beside it, and why they differ.
		cols = append(cols, cli.Column{Head: "Recorded", Keys: []string{"recorded_cost_usd"}, Kind: cli.Dollars},
			cli.Column{Head: "Difference", Keys: []string{"difference_reasons"}, Show: reasons})
	}
	return cli.Layout{Columns: cols, Total: true, Zone: loc, Empty: "no billed messages to sum"}
}
