package cli

import "github.com/ccpipe/ccpipe/lib/cache"

// SaveCache writes a command's cache back at its end and, with stats
// (--cache-stats), reports on stderr its size and the run's use of it. A
// cache that cannot be written only costs a full read next time: that is
// said under --cache-stats only. store nil is the cache turned off.
func SaveCache(env *Env, store *cache.Store, stats bool) {
	if store == nil {
		if stats {
			env.Warnf("cache: off")
		}
		return
	}
	serr := store.Save()
	if !stats {
		return
	}
	st := store.Stats()
	env.Warnf("cache: %s: %d files, %d bytes; this run: %d unchanged, %d grown, %d read whole, %d dropped", st.Path, st.Entries, st.Bytes, st.Fresh, st.Grown, st.Miss, st.Dropped)
	if st.Corrupt {
		env.Warnf("cache: the store was damaged and was rebuilt")
	}
	if serr != nil {
		env.Warnf("cache: not saved: %v", serr)
	}
}
