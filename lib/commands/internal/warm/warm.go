// Package warm is the warm usage cache of the commands: where lib/usage's
// ReadRecent keeps it (cc-statusline writes it on every refresh; lib/cache
// names the files, shared by the commands of one build) and the
// spend figures cc-hook's budget rules read from it. It links neither the
// session listing nor the transcript readers: cc-hook's hot path stays
// light.
package warm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// CacheDir is the warm cache of lib/usage's ReadRecent: the one
// cc-statusline keeps and cc-hook's spend reads ($XDG_CACHE_HOME/ccpipe/
// statusline, else the user cache dir's; a dir in the temp dir when HOME
// is unset, as under env -i or a service). "" with CCPIPE_CACHE=off.
func CacheDir(sys cli.System) string {
	if sys.Env("CCPIPE_CACHE") == "off" {
		return ""
	}
	if d := sys.CacheDir(); d != "" {
		return filepath.Join(d, "statusline")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("ccpipe-statusline-%d", os.Getuid()))
}

// Spend is the spend of a session as lib/usage's ReadRecent reads it
// from the warm cache (cacheDir; "" for none), for cc-hook: read whole,
// however long the first read takes, since a budget must not be passed
// on a partial figure; past the deadline it is an error.
func Spend(sys cli.System, cacheDir, transcript, session string) (usage.Spend, error) {
	if transcript == "" {
		return usage.Spend{}, errors.New("the payload has no transcript_path: the spend is not known")
	}
	now := sys.Clock()
	r := usage.ReadRecent(usage.RecentOptions{Transcript: transcript, CacheDir: cacheDir, Now: now,
		Recheck: 5 * time.Second, Deadline: time.Now().Add(Deadline), Location: sys.Location(), Session: session})
	if r.Partial {
		return r.Spend, fmt.Errorf("the spend could not be read within %v", Deadline)
	}
	return r.Spend, nil
}

// Deadline bounds the read of Spend (a cold cache on a big config
// dir); the next call reads on from where it stopped.
var Deadline = 20 * time.Second
