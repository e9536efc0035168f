package ccstatusline

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/ratelimit"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// keepSample appends the status's rate_limits sample, with the spend at
// now, to the ledger in cacheDir (lib/ratelimit). An error is for a note:
// the line is printed the same.
func keepSample(cacheDir string, st *Status, now time.Time) error {
	s, ok := ratelimit.SampleOf(st.RateLimits)
	if !ok {
		return nil
	}
	s.Time = now.UTC().Format(usage.BlockTimeLayout)
	s.SessionCostUSD = st.SessionCostUSD
	if sp := st.Spend; sp != nil {
		s.BlockUSD, s.DayUSD, s.MonthUSD = &sp.Block, &sp.Today, &sp.Month
	}
	return ratelimit.Keep(cacheDir, s)
}

var windowLayout = cli.Layout{Columns: []cli.Column{
	{Head: "Window", Keys: []string{"window"}},
	{Head: "First Seen", Keys: []string{"first_seen"}, Kind: cli.Time},
	{Head: "Last Seen", Keys: []string{"last_seen"}, Kind: cli.Time},
	{Head: "Resets At", Keys: []string{"resets_at"}, Kind: cli.Time},
	{Head: "Max %", Keys: []string{"max_used_percent"}},
	{Head: "Reset Seen", Keys: []string{"reset_at_observed"}, Kind: cli.Time},
	{Head: "Early", Keys: []string{"early"}},
	{Head: "Spend", Keys: []string{"spend_usd"}, Kind: cli.Dollars},
	{Head: "$/%", Keys: []string{"usd_per_percent"}, Kind: cli.Dollars},
}, Empty: "no rate-limit samples"}

// printWindows prints the ledger in cacheDir as windows (--rate-limits).
func printWindows(env *cli.Env, cacheDir string) error {
	if cacheDir == "" {
		return cli.Usagef("--rate-limits reads the ledger in the cache dir: not with --no-cache or CCPIPE_CACHE=off")
	}
	path := filepath.Join(cacheDir, ratelimit.LedgerName)
	samples, bad, err := ratelimit.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no ledger at %s: cc-statusline keeps one when Claude Code's payload has rate_limits (a subscription, not an API key)", path)
	}
	if err != nil {
		return err
	}
	if bad > 0 {
		env.Warnf("%s: %d malformed lines skipped", path, bad)
	}
	env.Out.SetLayout(windowLayout)
	for _, name := range ratelimit.Names {
		for _, w := range ratelimit.Windows(samples, name) {
			if err := env.Out.Write(w); err != nil {
				return err
			}
		}
	}
	return nil
}
