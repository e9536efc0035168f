package sessions

import (
	"context"
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/regular"
)

// DefaultCleanupPeriodDays is Claude Code's cleanupPeriodDays when
// settings.json does not set it: transcripts older than this many days
// are deleted at startup, with no trash.
const DefaultCleanupPeriodDays = 30

// CleanupWarnDays is how close to the cleanup an unarchived session is
// warned about.
const CleanupWarnDays = 7

// maxSettings bounds a settings.json read for cleanupPeriodDays.
const maxSettings = 4 << 20

// CleanupPeriodDays reads cleanupPeriodDays from a config dir's
// settings.json: the default when the file or the key is missing or not
// a number.
func CleanupPeriodDays(configDir string) int {
	b, err := regular.ReadFile(filepath.Join(configDir, "settings.json"), maxSettings)
	if err != nil {
		return DefaultCleanupPeriodDays
	}
	var s struct {
		CleanupPeriodDays *float64 `json:"cleanupPeriodDays"`
	}
	if json.Unmarshal(b, &s) != nil || s.CleanupPeriodDays == nil {
		return DefaultCleanupPeriodDays
	}
	return int(*s.CleanupPeriodDays)
}

// NearCleanup is what cc-sessions warns about: live sessions that Claude
// Code's cleanup deletes within CleanupWarnDays and that no archive dir
// of profs holds.
type NearCleanup struct {
	Sessions   int // how many
	PeriodDays int // the shortest cleanupPeriodDays among their profiles
}

// UnarchivedNearCleanup counts the live sessions of list whose transcript
// is older than their profile's cleanupPeriodDays less CleanupWarnDays
// (by the file's mtime, as the cleanup judges) and which no archive
// profile of profs holds a copy of. A profile whose cleanupPeriodDays is
// not positive is left out: its sweep is not a date.
func UnarchivedNearCleanup(ctx context.Context, profs []profiles.Profile, list []Session, now time.Time) NearCleanup {
	period := map[string]int{}
	var archives []profiles.Profile
	for _, p := range profs {
		if profiles.IsArchive(p) {
			archives = append(archives, p)
		} else {
			period[p.Name] = CleanupPeriodDays(p.ConfigDir)
		}
	}
	archived := map[string]bool{}
	if len(archives) > 0 {
		files, _ := Files(ctx, ProjectsDirs(archives), nil)
		for _, f := range files {
			archived[f.SessionID] = true
		}
	}
	var out NearCleanup
	for _, s := range list {
		if s.Source != SourceLive || s.Mtime.IsZero() || archived[s.SessionID] {
			continue
		}
		days := 0
		for _, name := range s.Profiles {
			if d, ok := period[name]; ok && d > 0 && (days == 0 || d < days) {
				days = d
			}
		}
		if days == 0 {
			continue
		}
		if now.Sub(s.Mtime) >= time.Duration(days-CleanupWarnDays)*24*time.Hour {
			out.Sessions++
			if out.PeriodDays == 0 || days < out.PeriodDays {
				out.PeriodDays = days
			}
		}
	}
	return out
}
