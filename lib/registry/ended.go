package registry

import (
	"sync"
	"time"

	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// endedEvery bounds how often the registry is read while following.
const endedEvery = 500 * time.Millisecond

// SessionEnded returns a check that a follower of a transcript calls to
// learn whether its session ended: the session's registry record (<config
// dir>/sessions/<pid>.json with this sessionId) is gone or its process is
// dead. A transcript outside a config dir has no registry: the returned
// func is nil and the follow lasts until a signal. The func is safe for
// concurrent use and reads the registry at most every 500 ms.
func SessionEnded(sessionID, path string) func() bool {
	cfg := transcript.ConfigDirOf(path)
	if cfg == "" || sessionID == "" {
		return nil
	}
	dir := layout.SessionsDir(cfg)
	host := LocalHost()
	var mu sync.Mutex
	var last time.Time
	stopped := false
	return func() bool {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return true
		}
		if !last.IsZero() && time.Since(last) < endedEvery {
			return false
		}
		last = time.Now()
		recs, _ := Read(dir)
		for _, rec := range recs {
			if rec.SessionID == sessionID && host.Check(rec) != Dead {
				return false
			}
		}
		stopped = true
		return true
	}
}
