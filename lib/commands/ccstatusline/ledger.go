package ccstatusline

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/ratelimit"
)

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
