package cli

import (
	"path/filepath"
	"runtime"
)

// CacheDir is where ccpipe keeps its caches: $XDG_CACHE_HOME/ccpipe,
// else the user cache dir's ccpipe (the System's Cache, os.UserCacheDir
// for the OS; else one under Home). "" means no cache: CCPIPE_CACHE=off,
// or no dir is known.
func (s System) CacheDir() string {
	if s.Env("CCPIPE_CACHE") == "off" {
		return ""
	}
	if d := s.Env("XDG_CACHE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "ccpipe")
	}
	if s.Cache != nil {
		if d, err := s.Cache(); err == nil && filepath.IsAbs(d) {
			return filepath.Join(d, "ccpipe")
		}
	}
	if s.Home == "" {
		return ""
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(s.Home, "Library", "Caches", "ccpipe")
	}
	return filepath.Join(s.Home, ".cache", "ccpipe")
}
