// Package load is what the commands load from the machine before they
// do their work, written once: the Claude Code profiles (config dirs) of
// the System, the session listing (cc-sessions', and what a command
// given neither a pipe nor paths reads), the transcripts named as
// arguments, and the --prices override file of cc-extract and
// cc-statusline.
package load

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/pricing"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/sessions"
)

// Profiles are the System's profiles, problems ignored: for completion
// and for checks that only need the dirs there are.
func Profiles(sys cli.System) []profiles.Profile {
	profs, _ := profiles.Discover(profiles.NewEnv(sys.Home, sys.Getenv))
	return profs
}

// DiscoverProfiles are the System's profiles, each problem warned on
// stderr; no home dir and no CLAUDE_CONFIG_DIR is an error (nowhere to
// look), not an empty answer.
func DiscoverProfiles(env *cli.Env, sys cli.System) ([]profiles.Profile, error) {
	profs, warnings := profiles.Discover(profiles.NewEnv(sys.Home, sys.Getenv))
	if err := profiles.NoHome(warnings); err != nil {
		return nil, err
	}
	for _, w := range warnings {
		env.Warnf("%v", w)
	}
	return profs, nil
}

// NamedProfiles keeps the profiles --profile names (all when none); a
// name no profile has is a usage error, as in cc-profiles.
func NamedProfiles(profs []profiles.Profile, names []string) ([]profiles.Profile, error) {
	named, err := profiles.Named(profs, names)
	var upe *profiles.UnknownProfileError
	if errors.As(err, &upe) {
		return nil, cli.Usagef("%s", upe.Usage())
	}
	return named, err
}

// ListOptions narrow and tune Listing: cc-sessions' --cwd-within,
// --no-cache and --cache-stats.
type ListOptions struct {
	CwdWithin           []string
	NoCache, CacheStats bool
	// Since is --since: a transcript last written before it is not read
	// (sessions.ListOptions.ModifiedSince).
	Since time.Time
}

// Listing is the session listing of cc-sessions: every session of profs
// (running ones without a transcript too), newest first, each problem
// warned on stderr, read through the summary cache unless opt.NoCache or
// the System has none.
func Listing(env *cli.Env, sys cli.System, profs []profiles.Profile, opt ListOptions) []sessions.Session {
	store := SummaryStore(sys, opt.NoCache)
	list, errs := sessions.List(env.Ctx, profs, sessions.ListOptions{
		CwdWithin: opt.CwdWithin, Getenv: sys.Getenv, Cache: store, ModifiedSince: opt.Since,
	})
	for _, err := range errs {
		env.Warnf("%v", err)
	}
	store.SaveReport(opt.CacheStats, env.Warnf)
	return list
}

// SummaryStore is the listing's summary cache, which a --find by title
// reads too; nil with noCache or when the System has no cache dir. Save
// it (SaveReport) when done.
func SummaryStore(sys cli.System, noCache bool) *cache.Store {
	if dir := sys.CacheDir(); dir != "" && !noCache {
		return cache.Open(dir, sessions.SummaryCacheName, sessions.SummaryCacheVersion)
	}
	return nil
}

// EverySession is what a command that reads sessions reads when it is
// given neither a pipe nor paths: the transcript of every session
// cc-sessions lists, in its order (newest first), as if its output were
// piped in. A running session with no transcript yet has nothing to read
// and is left out. An empty pipe is input (none), never this. With since
// (--since), a transcript last written before it holds nothing of the
// window: it is neither read nor returned.
func EverySession(env *cli.Env, sys cli.System, since time.Time) ([]sessions.Session, error) {
	profs, err := DiscoverProfiles(env, sys)
	if err != nil {
		return nil, err
	}
	var out []sessions.Session
	for _, s := range Listing(env, sys, profs, ListOptions{Since: since}) {
		if s.TranscriptPath != "" && !s.WrittenBefore(since) {
			out = append(out, s)
		}
	}
	return out, nil
}

// Prices is the built-in price table with the override rows of the
// --prices file at path, and the file's bytes (a cache key). A file that
// cannot be read or parsed is a usage error naming the file, line and
// field.
func Prices(path string) (*pricing.Catalog, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, cli.Usagef("--prices: %v", err)
	}
	rows, err := pricing.ParseOverrides(path, data)
	if err != nil {
		return nil, nil, cli.Usagef("--prices %v", err)
	}
	return pricing.Embedded().WithOverrides(rows), data, nil
}

// Transcripts adds each path; a directory adds every session transcript
// under it, in name order. A dir that cannot be listed goes to skip and
// the walk goes on: the rest is still read.
func Transcripts(paths []string, add func(string) error, skip func(error)) error {
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.IsDir() {
			// A missing file is reported by the reader, in order.
			if err := add(p); err != nil {
				return err
			}
			continue
		}
		if lst, lerr := os.Lstat(p); lerr == nil && lst.IsDir() {
			err = walkDir(p, true, add, skip)
		} else {
			err = walkSlow(p, add, skip)
		}
		if err != nil {
			return fmt.Errorf("listing %s: %w", p, err)
		}
	}
	return nil
}

// walkDir lists the transcripts under dir, in the order and with the
// warnings of walkSlow (filepath.WalkDir's), but with each dir's listing
// at hand as it is walked: a session's own dir is told by its
// transcript's name beside it in that listing (sessionDirIn), not by an
// lstat of each; and a path below the top is its dir's and the name
// joined as they are (a clean path and a plain name: filepath.Join's
// answer, without its Clean). top: dir is the one given (listed in part,
// what it held is still walked, as by filepath.WalkDir).
func walkDir(dir string, top bool, add func(string) error, skip func(error)) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		skip(fmt.Errorf("listing %s: %w", dir, err))
		if !top {
			return nil
		}
	}
	for _, d := range entries {
		name := d.Name()
		var path string
		if top {
			path = filepath.Join(dir, name)
		} else {
			path = dir + string(filepath.Separator) + name
		}
		if d.IsDir() {
			if layout.IsSkipDir(name) || sessionDirIn(entries, name) {
				continue
			}
			if err := walkDir(path, false, add, skip); err != nil {
				return err
			}
			continue
		}
		if _, _, ok := layout.Transcript(name); ok {
			if err := add(path); err != nil {
				return err
			}
		}
	}
	return nil
}

// sessionDirIn is isSessionDir of the dir name in a listing sorted by
// name (os.ReadDir's): its transcript is one of the names beside it.
func sessionDirIn(entries []os.DirEntry, name string) bool {
	if !layout.IsUUID(name) {
		return false
	}
	for _, suf := range layout.TranscriptSuffixes {
		want := name + suf
		i := sort.Search(len(entries), func(i int) bool { return entries[i].Name() >= want })
		if i < len(entries) && entries[i].Name() == want {
			return true
		}
	}
	return false
}

// walkSlow is walkDir by filepath.WalkDir and an lstat per session dir:
// the walk of a path that is a link to a dir (not followed below it, as
// ever), and walkDir's twin in tests.
func walkSlow(p string, add func(string) error, skip func(error)) error {
	return filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			skip(fmt.Errorf("listing %s: %w", path, err))
			if d != nil && d.IsDir() && path != p {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if path != p && (layout.IsSkipDir(d.Name()) || isSessionDir(path, d.Name())) {
				return filepath.SkipDir
			}
			return nil
		}
		if _, _, ok := layout.Transcript(d.Name()); ok {
			return add(path)
		}
		return nil
	})
}

// isSessionDir reports whether the dir at path is a session's own (named
// by its id, beside its transcript): it holds subagents and tool results,
// which --subagents reads, never a session transcript, so a walk need
// not list it (a warm cached run lists little else).
func isSessionDir(path, name string) bool {
	if !layout.IsUUID(name) {
		return false
	}
	for _, suf := range layout.TranscriptSuffixes {
		if _, err := os.Lstat(path + suf); err == nil {
			return true
		}
	}
	return false
}
